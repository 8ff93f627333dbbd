import assert from "node:assert/strict";
import type { AgentDefinition } from "../registry/schema.ts";
import { formatDiagnostic, renderAgentDetail, renderAgentList } from "./agents_render.ts";

const HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\x1b[H\x9b2J";
// deno-lint-ignore no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

const agent: AgentDefinition = {
  name: "reviewer",
  description: `Reviews code${HOSTILE} carefully`,
  systemPrompt: `You review.${HOSTILE}\nBe terse.`,
  tools: ["Read"],
  disallowedTools: [`Bash${HOSTILE}`],
  model: `sonnet${HOSTILE}`,
  permissionMode: "inherit",
  maxTurns: null,
  isolation: "none",
  background: false,
  color: null,
  skills: [`skill${HOSTILE}`],
  source: "project-claude",
  path: `/ws/.claude/agents/rev${HOSTILE}.md`,
} as AgentDefinition;

const style = { workspace: "/ws", home: "/home/u" };
const bold = (s: string) => `\x1b[1m${s}\x1b[22m`;
/** Blade's own bold is the only escape left. */
const withoutBold = (text: string) => text.replaceAll("\x1b[1m", "").replaceAll("\x1b[22m", "");

Deno.test("agents list and show: a repository's agent file cannot put escape sequences on the terminal", () => {
  const list = renderAgentList([agent], { sources: ["project-claude"], overridden: [], style, bold });
  const detail = renderAgentDetail(agent, {
    style,
    bold,
    diagnostics: [{ file: agent.path, severity: "warning", message: `odd${HOSTILE}`, hint: HOSTILE }],
  });
  for (const text of [list, detail]) {
    assert.doesNotMatch(withoutBold(text), RAW_CONTROL);
    assert.ok(text.includes("\x1b[1m"), "Blade's own styling is kept");
  }
  assert.match(detail, /Reviews code carefully/);
  assert.match(detail, /You review\.\n {2}Be terse\./);
  assert.match(list, /sonnet/);
});

Deno.test("formatDiagnostic: message, hint and file are terminal-safe", () => {
  const line = formatDiagnostic({
    file: `/ws/a${HOSTILE}.md`,
    line: 3,
    severity: "error",
    message: HOSTILE,
    hint: HOSTILE,
  }, style);
  assert.doesNotMatch(line, RAW_CONTROL);
  assert.equal(line, "a.md:3: error: \n  hint: ");
});
