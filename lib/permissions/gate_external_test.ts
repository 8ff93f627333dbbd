import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decide } from "./gate.ts";
import { parseRuleList } from "../protocol/tool_rule.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { loadBashParser } from "../shell/bash_parser.ts";

await loadBashParser();

function gate(name: string, mode: PermissionMode, rules: string[], readOnly = false) {
  return decide({
    name,
    kind: "external",
    input: { text: "x" },
    trusted: true,
    mode,
    rules: { allow: parseRuleList(rules).rules, deny: [], ask: [] },
    scope: { workspaceRoot: "/ws" },
    readOnly,
  });
}

describe("permission gate for MCP tools (kind external)", () => {
  it("default and autoEdit need an allow rule; yolo allows; plan allows only read-only tools with a rule", () => {
    const t = "mcp__github__create_issue";
    const table: [PermissionMode, string[], boolean, boolean][] = [
      ["default", [], false, false],
      ["default", [t], false, true],
      ["default", ["mcp__github"], false, true],
      ["default", ["mcp__github__*"], false, true],
      ["default", ["mcp__github__list_*"], false, false],
      ["default", ["mcp__gitlab__*"], false, false],
      ["default", [`${t}(anything)`], false, false],
      ["autoEdit", [], false, false],
      ["yolo", [], false, true],
      ["plan", [t], false, false],
      ["plan", [t], true, true],
      ["plan", [], true, false],
    ];
    for (const [mode, rules, readOnly, allowed] of table) {
      assert.equal(
        gate(t, mode, rules, readOnly).allow,
        allowed,
        `${mode} ${rules.join(",")} readOnly=${readOnly}`,
      );
    }
  });

  it("a refusal the interactive session may ask about is askable; dontAsk and plan refusals are not", () => {
    const t = "mcp__github__create_issue";
    const table: [PermissionMode, boolean, boolean][] = [
      ["default", false, true],
      ["autoEdit", false, true],
      ["dontAsk", false, false],
      ["plan", false, false],
    ];
    for (const [mode, readOnly, askable] of table) {
      const d = gate(t, mode, [], readOnly);
      assert.equal(d.allow, false, mode);
      assert.equal(d.allow ? undefined : d.askable, askable, mode);
    }
  });

  it("every refusal says what was refused, why and the rule that would allow it", () => {
    const d = gate("mcp__github__create_issue", "default", []);
    assert.equal(d.allow, false);
    assert.match(
      d.allow ? "" : d.message,
      /^Permission denied: mcp__github__create_issue \(an MCP tool\) needs approval .*--allowed-tools "mcp__github__create_issue" \(or "mcp__github__\*"/,
    );
    const p = gate("mcp__github__create_issue", "plan", ["mcp__github"]);
    assert.match(
      p.allow ? "" : p.message,
      /not available in plan mode: its MCP server does not mark it read-only/,
    );
  });

  it("wildcard rules stay MCP-only: `Bash*` or `*` allow nothing", () => {
    assert.deepEqual(parseRuleList(["mcp__github__*, Bash*"]).rules.map((r) => r.tool), [
      "mcp__github__*",
      "Bash*",
    ]);
    const bash = decide({
      name: "Bash",
      kind: "execute",
      input: { command: "npm test" },
      trusted: true,
      mode: "default",
      rules: { allow: parseRuleList(["Bash*"]).rules, deny: [], ask: [] },
      scope: { workspaceRoot: "/ws" },
    });
    assert.equal(bash.allow, false);
  });
});

describe("MCP tools in an untrusted workspace", () => {
  it("no mode runs a tool its server does not mark read-only (a settings bypass least of all); a rule naming it does", () => {
    const t = "mcp__files__write_file";
    const untrusted = (mode: PermissionMode, rules: string[], readOnly = false) =>
      decide({
        name: t,
        kind: "external",
        input: { path: "x" },
        trusted: false,
        mode,
        rules: { allow: parseRuleList(rules).rules, deny: [], ask: [] },
        scope: { workspaceRoot: "/ws" },
        readOnly,
      });
    const yolo = untrusted("yolo", []);
    assert.equal(yolo.allow, false);
    assert.match(
      !yolo.allow ? yolo.message : "",
      /this workspace is not trusted, so no permission mode runs it/,
    );
    // The other modes never ran it without a rule: they ask (interactive) or refuse (print mode).
    for (const mode of ["autoEdit", "default", "dontAsk"] as const) {
      assert.equal(untrusted(mode, []).allow, false);
    }
    assert.equal(untrusted("default", [t]).allow, true);
    assert.equal(untrusted("yolo", [], true).allow, true, "a read-only tool runs as in a trusted folder");
  });
});
