import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { completeSlash, parseSlash, SLASH_COMMANDS, slashAutocomplete } from "./slash.ts";
import { helpText } from "./slash_commands.ts";

const AGENTS = ["Explore", "code-reviewer"];
const MODES = ["default", "autoEdit", "yolo", "plan"];
const values = (before: string) =>
  completeSlash(before, { agentNames: AGENTS, modes: MODES })?.items.map((i) => i.value);

describe("parseSlash", () => {
  const cases: [string, ReturnType<typeof parseSlash>][] = [
    ["/help", { name: "help", words: [], rest: "" }],
    ["  /Tasks stop agent-1 ", { name: "tasks", words: ["stop", "agent-1"], rest: "stop agent-1" }],
    ["/tasks resume agent-1 go on\nplease", {
      name: "tasks",
      words: ["resume", "agent-1", "go", "on", "please"],
      rest: "resume agent-1 go on\nplease",
    }],
    ["explain /etc/hosts", undefined],
    ["/", undefined],
    ["//x", undefined],
  ];
  for (const [line, want] of cases) it(JSON.stringify(line), () => assert.deepEqual(parseSlash(line), want));
});

describe("completeSlash", () => {
  const cases: [string, string[] | undefined][] = [
    ["/", [
      "/help",
      "/agents",
      "/tasks",
      "/permissions",
      "/model",
      "/status",
      "/trust",
      "/memory",
      "/compact",
      "/clear",
      "/resume",
      "/exit",
    ]],
    ["/ta", ["/tasks"]],
    ["/tasks", undefined],
    ["/permissions autoEdit", undefined],
    ["/agents show Explore", undefined],
    ["/tasks ", ["list", "output", "transcript", "stop", "resume", "clean"]],
    ["/tasks s", ["stop"]],
    ["/agents show ", ["Explore", "code-reviewer"]],
    ["/agents show co", ["code-reviewer"]],
    ["/agents list ", undefined],
    ["/permissions a", ["autoEdit"]],
    ["/nothing ", undefined],
    ["hello /ta", undefined],
  ];
  for (const [before, want] of cases) {
    it(JSON.stringify(before), () => assert.deepEqual(values(before), want));
  }

  it("applies a completion in place and leaves the cursor after it", () => {
    const provider = slashAutocomplete(() => AGENTS, MODES);
    const applied = provider.applyCompletion(["/agents show co"], 0, 15, {
      value: "code-reviewer",
      label: "",
    }, "co");
    assert.deepEqual(applied, { lines: ["/agents show code-reviewer "], cursorLine: 0, cursorCol: 27 });
  });
});

describe("helpText", () => {
  it("names every command and fits an 80-column terminal", () => {
    const text = helpText();
    for (const c of SLASH_COMMANDS) assert.ok(text.includes(`/${c.name}`), c.name);
    const wide = text.split("\n").filter((l) => [...l].length > 80);
    assert.deepEqual(wide, []);
  });
});

describe("custom commands", () => {
  const custom = [{ name: "review", description: "Review a file", argumentHint: "<file>" }, {
    name: "re:do",
  }];
  it("complete after Blade's own, with their hint and description", () => {
    const got = completeSlash("/re", { agentNames: AGENTS, modes: MODES, custom });
    assert.deepEqual(got?.items.map((i) => [i.value, i.description]), [
      ["/resume", "[id] — continue an earlier session of this folder"],
      ["/review", "<file> — Review a file"],
      ["/re:do", "custom command"],
    ]);
    assert.equal(completeSlash("/review", { agentNames: AGENTS, modes: MODES, custom }), undefined);
  });
  it("are listed by /help under their own heading, file text made plain", () => {
    const text = helpText([...custom, { name: "x", description: "bad\u001b[2Jtext" }]);
    assert.match(text, /Custom commands \(\.claude\/commands\):\n {2}\/review {19}<file> — Review a file\n/);
    assert.ok(!text.includes("\u001b"));
  });
});
