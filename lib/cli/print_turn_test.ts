import assert from "node:assert/strict";
import type { Io } from "./io.ts";
import { printSink, refusalLine } from "./print_turn.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import type { OutputFormat } from "./print_render.ts";

/** Any control character a terminal could act on (newline kept). */
const RAW_CONTROL = new RegExp(String.raw`[\x00-\x09\x0b-\x1f\x7f-\x9f]`);

const HOSTILE = "a\x1b]52;c;ZXZpbA==\x07\x1b]0;t\x07\x1b[2J\x1b[5A\x9b2J\x9d0;t\x9c\x7fb";

/** Whether `value` has `text` as one of its strings, at any depth. */
function holds(value: unknown, text: string): boolean {
  if (value === text) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some((v) => holds(v, text));
}

function ttySink(format: OutputFormat) {
  let out = "";
  let err = "";
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), color: false, tty: true };
  const sink = printSink(io, { format, mainSessionId: () => "main", now: () => 0, cwd: "/w" });
  return { sink, out: () => out, err: () => err };
}

function hostileRun(s: ReturnType<typeof ttySink>["sink"]) {
  s.emit({ type: "session_started", sessionId: "main" } as never);
  s.emit({ type: "text_delta", sessionId: "main", text: HOSTILE });
  s.emit({ type: "runtime_warning", message: HOSTILE } as never);
  s.finish({
    sessionId: "main",
    status: "completed",
    result: HOSTILE,
    numTurns: 1,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  });
}

for (const format of ["json", "stream-json", "blade-events"] as const) {
  Deno.test(`${format} on a terminal carries no raw control character, and parses back to the same text`, () => {
    const s = ttySink(format);
    hostileRun(s.sink);
    assert.doesNotMatch(s.out(), RAW_CONTROL);
    assert.doesNotMatch(s.err(), RAW_CONTROL);
    const lines = s.out().trim().split("\n").map((l) => JSON.parse(l));
    assert.ok(lines.length > 0);
    // The JSON value is unchanged: the escapes are JSON's own (\u001b, \u009b), not lost text.
    assert.ok(holds(lines, HOSTILE));
    assert.ok(s.out().includes("\\u009b2J") && s.out().includes("\\u001b]52;"));
  });
}

Deno.test("text on a terminal: the answer and the warning on stderr keep the text, not the sequences", () => {
  const s = ttySink("text");
  hostileRun(s.sink);
  assert.equal(s.out(), "ab\n");
  assert.equal(s.err(), "blade: warning: ab\n");
});

Deno.test("refusalLine: one stderr line per refused call, with the rule that would allow it", () => {
  const done = (over: Record<string, unknown>) =>
    ({
      type: "tool_completed",
      sessionId: "s",
      callId: "c",
      name: "Bash",
      isError: true,
      content:
        'Permission denied: Bash command "git push" needs approval in permission mode "default", and ' +
        'print mode cannot ask. Re-run with --permission-mode yolo (Claude Code: bypassPermissions) or --allowed-tools "Bash".',
      denied: true,
      allowWith: "Bash(git push)",
      ...over,
    }) as RuntimeEvent;
  assert.equal(
    refusalLine(done({})),
    'blade: denied Bash: Bash command "git push" needs approval in permission mode "default", and print mode ' +
      'cannot ask. Allow it with --allowed-tools "Bash(git push)".\n',
  );
  assert.equal(
    refusalLine({
      type: "subagent_event",
      parentSessionId: "s",
      agentId: "a",
      event: done({
        allowWith: undefined,
        content: 'Permission denied: Bash command "rm -rf x" matches the deny rule Bash(rm:*).',
      }),
    }),
    'blade: denied Bash (in a subagent): Bash command "rm -rf x" matches the deny rule Bash(rm:*).\n',
  );
  assert.equal(refusalLine(done({ denied: undefined })), undefined);
  // Model-controlled text never reaches the terminal raw.
  assert.equal(
    refusalLine(done({ content: "Permission denied: \u001b[31mred\u001b[0m." }))!.includes("\u001b"),
    false,
  );
});
