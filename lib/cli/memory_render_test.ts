import assert from "node:assert/strict";
import { contextJson, type ContextReport, contextText } from "./memory_render.ts";

const report: ContextReport = {
  workspace: "/ws",
  trusted: true,
  bare: false,
  memory: {
    files: [
      { path: "/home/u/.claude/CLAUDE.md", kind: "user", content: "x".repeat(4000) },
      { path: "/ws/CLAUDE.md", kind: "project", content: "see @docs/a.md" },
      { path: "/ws/docs/a.md", kind: "project", content: "abc", importedBy: "/ws/CLAUDE.md" },
      { path: "/ws/CLAUDE.local.md", kind: "local", content: "" },
    ],
    diagnostics: [{
      path: "/ws/CLAUDE.md",
      message: "/ws/CLAUDE.md imports ~/x.md, which is outside the folders it may import from: not loaded",
    }],
  },
  skills: [{ name: "deploy", path: "/ws/.claude/skills/deploy/SKILL.md", description: "Deploy" }],
  commands: [{ name: "review", path: "/ws/.claude/commands/review.md" }],
};

Deno.test("contextText: each file with its kind, origin and tokens; skipped imports; skills and commands", async (t) => {
  await t.assertSnapshot(contextText(report), { serializer: (s) => s });
  assert.equal(
    contextText({ ...report, bare: true }),
    "Memory of /ws (trusted)\n--bare: no memory, commands or skills are loaded from files.\n",
  );
  assert.match(
    contextText({ ...report, trusted: false, memory: { files: [], diagnostics: [] } }),
    /No memory files\.\nProject memory is not loaded: this folder is not trusted/,
  );
});

Deno.test("contextJson: tokens per file and in total", () => {
  const json = contextJson(report) as { memory: { tokens: number }[]; totalTokens: number };
  assert.deepEqual(json.memory.map((f) => f.tokens), [1000, 4, 1, 0]);
  assert.equal(json.totalTokens, 1005);
});
