// Golden comparison of hooks with Claude Code 2.1.332 (docs/guides/hooks.md): each case of
// tests/support/claude_hook_cases.ts runs through Blade with the same bash hook scripts, settings,
// agent file and scripted model, and what Claude Code did (tests/fixtures/claude/hooks_*/, recorded by
// scripts/record_claude_hooks.ts) is compared with what Blade does: the hooks that ran, in which
// order, with which input fields and values; the hook texts the model was sent and in which request
// they first appeared; the result object (text, turns, exit code, permission_denials); and the
// stream-json `system` lines a blocked prompt prints; the hook lines printed before `system/init`; each PostToolUse's `tool_response` field for field
// (Bash, Read, Write, Edit); what the model sees of a command that printed nothing.

import assert from "node:assert/strict";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import type { RecordedRequest } from "../lib/testing/fake_model_server.ts";
import { bladeSandbox } from "./support/blade.ts";
import { BASH_NO_OUTPUT } from "../lib/tools/bash.ts";
import {
  caseHandler,
  HOOK_CASES,
  HOOK_PARAGRAPH,
  hookInputs,
  isChild,
  sideRequest,
  type SystemTurn,
  systemTurns,
  textsOf,
  verifierRequest,
  writeCase,
} from "./support/claude_hook_cases.ts";
import { VERIFIER_TOOLS } from "../lib/hooks/agent_hook.ts";
import { hookTimeoutSeconds } from "../lib/hooks/hook_timeout.ts";

const FIXTURES = decodeURIComponent(new URL("./fixtures/claude/", import.meta.url).pathname);

type Json = Record<string, unknown>;

interface Recorded {
  exitCode: number;
  stream: Json[];
  inputs: { hook: string; input: Json }[];
  requests: {
    child: boolean;
    last: { role: string; type: string; text?: string }[];
    systemHookLines: string[];
    systemTurns?: Omit<SystemTurn, "text">[];
  }[];
}

async function recorded(name: string): Promise<Recorded> {
  const dir = `${FIXTURES}${name}`;
  const lines = (file: string) =>
    Deno.readTextFile(`${dir}/${file}`).then((t) =>
      t.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))
    );
  return {
    exitCode: Number((await Deno.readTextFile(`${dir}/exit_code.txt`)).trim()),
    stream: await lines("stream.jsonl"),
    inputs: await lines("hook_inputs.jsonl"),
    requests: JSON.parse(await Deno.readTextFile(`${dir}/requests.json`)).requests,
  };
}

/** Input fields whose values must be Claude Code's (paths normalised). */
const SAME_VALUE = [
  "cwd",
  "hook_event_name",
  "permission_mode",
  "tool_name",
  "tool_input",
  "prompt",
  "source",
  "reason",
  "stop_hook_active",
  "last_assistant_message",
  "agent_type",
  "error",
  "is_interrupt",
];

/** Input fields Blade fills in its own way (ids, paths), present when Claude Code's are. */
const SAME_KIND = ["session_id", "transcript_path", "tool_use_id", "agent_id", "agent_transcript_path"];

/** Fields of a `tool_response` that measure time: present in both, their values free. */
const TIMINGS = new Set(["durationMs"]);

function withoutTimings(response: unknown): unknown {
  if (typeof response !== "object" || response === null) return response;
  return Object.fromEntries(Object.entries(response).filter(([k]) => !TIMINGS.has(k)));
}

/** Claude Code fields Blade does not have (no such state in Blade): never required. */
const CLAUDE_ONLY = new Set(["prompt_id", "effort", "background_tasks", "session_crons", "duration_ms"]);

/**
 * A hook's texts in what the model was sent: the context paragraphs Claude Code puts in its system
 * turn (`X hook success: …`, `X hook additional context: …`), a refused call's result, Stop feedback.
 */
function hookTexts(blocks: readonly { role: string; type: string; text?: string }[]): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    const text = b.text ?? "";
    if (b.type === "tool_result" && text.includes("hook error")) out.push(text);
    else if (text.startsWith("<system-reminder>\nThe text below is the output of a hook")) out.push(text);
    else {
      for (const paragraph of text.split("\n\n")) {
        if (HOOK_PARAGRAPH.test(paragraph)) out.push(paragraph);
      }
    }
  }
  return out;
}

/** Every text Blade sent in one request (any role, any message). */
function allTexts(request: RecordedRequest<AnthropicRequestBody>): string {
  return textsOf(request.body.messages ?? []).map((b) => b.text ?? "").join("\n\u0000\n");
}

/**
 * A case's `prompt` hook side requests against Claude Code's (side_requests.json): the evaluator's
 * instructions and the answer's schema exactly; each message's role, kind and text, where the event's
 * JSON input in a text is compared by its fields (Claude Code's own fields, CLAUDE_ONLY, left out; the
 * session's id and transcript are the run's) and a Stop hook's transcript by its own messages (Claude
 * Code's attribution reminder and environment turn are its system prompt's part in Blade).
 */
async function compareSides(
  name: string,
  sent: ReturnType<typeof sideRequest>[],
  o: { ws: string; stream: Json[] },
): Promise<void> {
  const file = `${FIXTURES}${name}/side_requests.json`;
  const want: ReturnType<typeof sideRequest>[] = await Deno.readTextFile(file).then(JSON.parse, () => []);
  assert.equal(sent.length, want.length, `${name}: side requests`);
  const init = o.stream.find((l) => l.subtype === "init")!;
  const withJson = (text: string) => {
    const at = text.indexOf('{"session_id"');
    if (at === -1) return { text };
    const input = JSON.parse(text.slice(at));
    for (const k of CLAUDE_ONLY) delete input[k];
    delete input.session_id;
    delete input.transcript_path;
    return { text: text.slice(0, at), input };
  };
  const ours = (m: { role: string; type: string; text?: string }) =>
    !(m.role === "system" || m.text?.startsWith("<system-reminder>\nAttribution"));
  want.forEach((w, i) => {
    const s = sent[i]!;
    assert.equal(s.system, w.system, `${name}: side request ${i} system prompt`);
    assert.deepEqual(s.format, w.format, `${name}: side request ${i} answer schema`);
    const norm = (list: typeof w.messages) =>
      list.filter(ours).map((m) => ({ role: m.role, type: m.type, ...withJson(m.text ?? "") }));
    assert.deepEqual(
      norm(s.messages),
      JSON.parse(JSON.stringify(norm(w.messages)).replaceAll("/WS", o.ws)),
      `${name}: side request ${i} messages`,
    );
    const input = JSON.parse(s.messages.at(-1)!.text!.slice(s.messages.at(-1)!.text!.indexOf("{")));
    assert.equal(input.session_id, init.session_id, `${name}: side request ${i} session`);
  });
}

/**
 * A case's `agent` hook verifier runs against Claude Code's (verifier_requests.json): as many model
 * requests; the verifier's instructions (the transcript path the session's), its StructuredOutput
 * schema and its task (the event's input compared by its fields) exactly; its tools Blade's read-only
 * set where Claude Code offers its own (Bash, Edit, Write, …: docs/guides/hooks.md); and what its tools
 * wrote: Claude Code's verifier wrote the project's file (verifier_wrote.txt), Blade's writes nothing.
 */
async function compareVerifiers(
  name: string,
  sent: ReturnType<typeof verifierRequest>[],
  o: { ws: string; stream: Json[] },
): Promise<void> {
  const dir = `${FIXTURES}${name}`;
  const want: ReturnType<typeof verifierRequest>[] = await Deno.readTextFile(`${dir}/verifier_requests.json`)
    .then(JSON.parse, () => []);
  assert.equal(sent.length, want.length, `${name}: verifier requests`);
  if (want.length === 0) return;
  const init = o.stream.find((l) => l.subtype === "init")!;
  const task = (messages: { role: string; text?: string }[]) => {
    const text = messages.find((m) => m.role === "user" && !m.text?.startsWith("<system-reminder>"))!.text!;
    const at = text.indexOf('{"session_id"');
    const input = JSON.parse(text.slice(at));
    for (const k of CLAUDE_ONLY) delete input[k];
    return { text: text.slice(0, at), input };
  };
  want.forEach((w, i) => {
    const s = sent[i]!;
    const ours = task(s.messages);
    assert.equal(ours.input.session_id, init.session_id, `${name}: verifier ${i} session`);
    const transcript = ours.input.transcript_path as string;
    const instructions = (w.system as string[]).at(-1)!.replace(
      /available at: \S+/,
      `available at: ${transcript}`,
    );
    assert.ok(
      (s.system as string[]).join("\n\n").includes(instructions),
      `${name}: verifier ${i} instructions:\n${JSON.stringify(s.system)}`,
    );
    assert.deepEqual(
      s.structuredOutput,
      w.structuredOutput,
      `${name}: verifier ${i} StructuredOutput schema`,
    );
    assert.deepEqual(
      w.tools.slice(-1),
      ["StructuredOutput"],
      `${name}: Claude Code's verifier answers through StructuredOutput`,
    );
    assert.deepEqual(
      s.tools.toSorted(),
      [...VERIFIER_TOOLS, "StructuredOutput"].toSorted(),
      `${name}: verifier ${i} tools`,
    );
    const theirs = task(w.messages);
    delete ours.input.session_id;
    delete ours.input.transcript_path;
    delete theirs.input.session_id;
    delete theirs.input.transcript_path;
    assert.deepEqual(
      ours,
      JSON.parse(JSON.stringify(theirs).replaceAll("/WS", o.ws)),
      `${name}: verifier ${i} task`,
    );
  });
  const theirsWrote = await Deno.readTextFile(`${dir}/verifier_wrote.txt`);
  const oursWrote = await Deno.readTextFile(`${o.ws}/verifier_wrote.txt`).catch(() => "(no file)\n");
  assert.equal(
    oursWrote,
    "(no file)\n",
    `${name}: Blade's verifier wrote nothing (Claude Code's: ${theirsWrote.trim()})`,
  );
}

/** Consecutive runs of one event collapsed (hooks of one event run in parallel: their order is free). */
function eventOrder(inputs: readonly { input: Json }[]): string[] {
  const out: string[] = [];
  for (const { input } of inputs) {
    const event = String(input.hook_event_name);
    if (out.at(-1) !== event) out.push(event);
  }
  return out;
}

/**
 * The `hook_started` / `hook_response` lines in order, ids left out; within a run of lines of one hook
 * name (hooks of one event run in parallel: they end in any order) sorted.
 */
function hookLines(lines: readonly Json[]): string[][] {
  const runs: { name: unknown; lines: string[] }[] = [];
  for (const l of lines) {
    if (l.subtype !== "hook_started" && l.subtype !== "hook_response") continue;
    const shown = l.subtype === "hook_started"
      ? [l.subtype, l.hook_name, l.hook_event]
      : [l.subtype, l.hook_name, l.hook_event, l.output, l.stdout, l.stderr, l.exit_code, l.outcome];
    if (runs.at(-1)?.name !== l.hook_name) runs.push({ name: l.hook_name, lines: [] });
    runs.at(-1)!.lines.push(JSON.stringify(shown));
  }
  return runs.map((r) => r.lines.sort());
}

/**
 * The top-level lines in order as kinds (`type/subtype`, a notification's key, a user line's first
 * block type), hooks of one event (which run in parallel) sorted within their run.
 */
function lineKinds(lines: readonly Json[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  let runName: unknown;
  const end = () => {
    out.push(...run.sort());
    run = [];
  };
  for (const l of lines) {
    if (l.parent_tool_use_id !== undefined && l.parent_tool_use_id !== null) continue;
    const content = (l.message as { content?: { type: string }[] } | undefined)?.content;
    const kind = [l.type, l.subtype ?? "", l.key ?? "", l.type === "user" ? content?.[0]?.type : ""].join(
      "/",
    );
    const hook = String(l.subtype).startsWith("hook_") ? l.hook_name : undefined;
    if (hook === undefined || hook !== runName) end();
    runName = hook;
    run.push(kind);
  }
  end();
  return out;
}

function withoutIds(line: Json): Json {
  const { uuid: _u, session_id: _s, ...rest } = line;
  return rest;
}

async function compare(
  name: string,
  o: { env?: Record<string, string>; sequence?: boolean } = {},
): Promise<void> {
  const env = o.env ?? {};
  const c = HOOK_CASES.find((x) => x.name === name)!;
  const want = await recorded(name);
  await using box = await bladeSandbox();
  const ws = box.workspace;
  await writeCase(c, ws);
  const { handler, answered, sides, verifiers } = caseHandler(c, { ws });
  await using server = startFakeAnthropicServer({ handler });
  const run = await box.run(
    [
      "-p",
      c.prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-hook-events",
      "--trust-workspace",
    ],
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake", ...env } },
  );
  const norm = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll("/WS", ws));
  const context = `${name}: ${run.stderr}${run.stdout.trim().split("\n").at(-1)}`;
  assert.equal(run.code, want.exitCode, context);
  const stream = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Json);

  // A `prompt` hook's side requests: Claude Code's instructions, question and answer schema.
  await compareSides(name, sides.map((r) => sideRequest(r.body)), { ws, stream });
  // An `agent` hook's verifier: Claude Code's instructions, task and answer schema; read-only tools.
  await compareVerifiers(name, verifiers.map((r) => verifierRequest(r.body)), { ws, stream });

  // The result object.
  const result = stream.find((l) => l.type === "result")!;
  const wantResult = want.stream.find((l) => l.type === "result")!;
  for (const key of ["subtype", "is_error", "result", "num_turns"]) {
    assert.deepEqual(result[key], norm(wantResult[key]), `${name}: result.${key}`);
  }
  const denials = (l: Json) =>
    (l.permission_denials as Json[]).map((d) => ({ tool_name: d.tool_name, tool_input: d.tool_input }));
  assert.deepEqual(denials(result), norm(denials(wantResult)), `${name}: permission_denials`);

  // Claude Code's informational lines (a blocked prompt).
  const informational = (lines: Json[]) => lines.filter((l) => l.subtype === "informational").map(withoutIds);
  assert.deepEqual(informational(stream), norm(informational(want.stream)), `${name}: informational lines`);

  // The whole top-level stream in Claude Code's order: hook lines around the answers, a Stop hook's
  // feedback line and `stop-hook-error` notification, no permission_denied line for a hook's refusal.
  if (o.sequence !== false) {
    assert.deepEqual(lineKinds(stream), lineKinds(want.stream), `${name}: the stream's lines in order`);
  }

  // A Stop hook's feedback as Claude Code's synthetic user line shows it.
  const synthetic = (lines: Json[]) =>
    lines.filter((l) => l.type === "user" && l.isSynthetic === true).map((l) => l.message);
  assert.deepEqual(synthetic(stream), norm(synthetic(want.stream)), `${name}: synthetic user lines`);

  // The hook lines of `--include-hook-events`, and which of them come before `system/init`.
  assert.deepEqual(hookLines(stream), hookLines(norm(want.stream)), `${name}: hook lines`);
  const beforeInit = (lines: Json[]) => lines.slice(0, lines.findIndex((l) => l.subtype === "init"));
  assert.deepEqual(
    hookLines(beforeInit(stream)),
    hookLines(beforeInit(norm(want.stream))),
    `${name}: hook lines before system/init`,
  );
  assert.deepEqual(
    beforeInit(stream).filter((l) => !String(l.subtype).startsWith("hook_")),
    [],
    `${name}: only hook lines before system/init`,
  );
  for (const r of stream.filter((l) => l.subtype === "hook_response")) {
    assert.ok(
      stream.some((l) => l.subtype === "hook_started" && l.hook_id === r.hook_id),
      `${name}: started ${r.hook_id}`,
    );
  }

  // The hooks that ran: which, in which order, with which input.
  const got = await hookInputs(ws);
  const key = (i: { hook: string; input: Json }) => `${i.hook}:${i.input.hook_event_name}`;
  assert.deepEqual(got.map(key).sort(), want.inputs.map(key).sort(), `${name}: hooks run`);
  assert.deepEqual(eventOrder(got), eventOrder(want.inputs), `${name}: event order`);
  const sessions = new Set(got.map((i) => i.input.session_id));
  assert.equal(sessions.size, got.length === 0 ? 0 : 1, `${name}: one session id in every input`);
  const remaining = [...got];
  for (const w of want.inputs) {
    // Its counterpart: the same hook and event with the same compared values, first come first served.
    const expected = norm(w.input) as Json;
    const at = remaining.findIndex((g) =>
      g.hook === w.hook && SAME_VALUE.every((k) => JSON.stringify(g.input[k]) === JSON.stringify(expected[k]))
    );
    assert.notEqual(
      at,
      -1,
      `${name}: no Blade input like ${JSON.stringify(expected)} in ${JSON.stringify(got)}`,
    );
    const input = remaining.splice(at, 1)[0]!.input;
    for (const k of SAME_KIND) {
      assert.equal(
        typeof input[k],
        typeof expected[k],
        `${name}: ${w.hook} ${k} in ${JSON.stringify(input)}`,
      );
    }
    // A PostToolUse's `tool_response`: Claude Code's object for the tool, field for field.
    if ("tool_response" in expected) {
      assert.deepEqual(
        withoutTimings(input.tool_response),
        withoutTimings(expected.tool_response),
        `${name}: ${w.hook} tool_response of ${JSON.stringify(expected.tool_input)}`,
      );
    }
    const extra = Object.keys(input).filter((k) => !(k in expected));
    assert.deepEqual(extra, [], `${name}: ${w.hook} fields Claude Code does not send`);
    const missing = Object.keys(expected).filter((k) => !(k in input) && !CLAUDE_ONLY.has(k));
    assert.deepEqual(missing, [], `${name}: ${w.hook} fields Blade does not send`);
  }

  // The hook texts the model was sent, first in the same request (the parent's and a subagent's apart).
  const blade = {
    parent: answered.filter((r) => !isChild(c, r.body)),
    child: answered.filter((r) => isChild(c, r.body)),
  };
  const claude = {
    parent: want.requests.filter((r) => !r.child),
    child: want.requests.filter((r) => r.child),
  };
  // What the model is told of a command that printed nothing, request by request.
  const quiet = (last: readonly { type: string; text?: string }[]) =>
    last.filter((b) => b.type === "tool_result" && b.text === BASH_NO_OUTPUT).length;
  assert.deepEqual(
    blade.parent.map((r) => quiet(textsOf((r.body.messages ?? []).slice(-1)))),
    claude.parent.map((r) => quiet(r.last)),
    `${name}: "${BASH_NO_OUTPUT}" results`,
  );
  for (const side of ["parent", "child"] as const) {
    assert.equal(blade[side].length, claude[side].length, `${name}: ${side} model requests`);
    // Hook texts reach the model in system turns where Claude Code's do, byte for byte: the turn
    // follows the same kind of message, has the same form, and holds exactly the hook texts, a blank
    // line between them (Claude Code's environment turn holds Blade's system prompt's part too).
    claude[side].forEach((r, i) => {
      const sent = systemTurns(blade[side][i]!.body).map((t) => ({
        after: t.after,
        form: t.form,
        hooks: t.hooks.map((h) => h.replaceAll(ws, "/WS")),
        exact: t.text === t.hooks.join("\n\n"),
      }));
      assert.deepEqual(
        sent,
        (r.systemTurns ?? []).map((t) => ({ ...t, exact: true })),
        `${name}: ${side} request ${i} system turns`,
      );
    });
    claude[side].forEach((r, i) => {
      for (const text of hookTexts(r.last).map((t) => t.replaceAll("/WS", ws))) {
        const first = blade[side].findIndex((b) => allTexts(b).includes(text));
        assert.equal(first, i, `${name}: ${side} request ${i} should first carry ${JSON.stringify(text)}`);
      }
    });
  }
}

for (
  const name of [
    "hooks_prompt_block",
    "hooks_prompt_json",
    "hooks_prompt_json_block",
    "hooks_session_start_plain",
    "hooks_events",
    "hooks_subagent",
    "hooks_tool_response",
    "hooks_failure_block",
    "hooks_prompt_pretool",
    "hooks_prompt_stop",
    "hooks_prompt_invalid",
    "hooks_agent_block",
    "hooks_agent_allow",
    "hooks_agent_noverdict",
    "hooks_agent_timeout",
  ]
) {
  Deno.test(`hooks golden: ${name} as Claude Code 2.1.332`, () => compare(name));
}

// A child in this thread (no Worker) fires the same hooks the same way.
Deno.test("hooks golden: hooks_subagent with the child in the main thread", () =>
  compare("hooks_subagent", { env: { BLADE_CHILD_SANDBOX: "none" } }));

// An `agent` hook's verifier in this thread (no Worker) runs and answers the same way.
Deno.test("hooks golden: hooks_agent_allow with the verifier in the main thread", () =>
  compare("hooks_agent_allow", { env: { BLADE_CHILD_SANDBOX: "none" } }));

/**
 * PreCompact (`-p "/compact keep the numbers"` continuing an earlier prompt's session), compared with
 * what Claude Code did: the hooks run (the `manual` matcher's, not the `auto` one's) with its input
 * field for field, the model requests made, the summary request's instructions (the user's, then the
 * hook's stdout), the exit and result; a block (exit 2) stops the compaction with Claude Code's words.
 */
async function comparePreCompact(name: string): Promise<void> {
  const c = HOOK_CASES.find((x) => x.name === name)!;
  const want = await recorded(name);
  await using box = await bladeSandbox();
  const ws = box.workspace;
  await writeCase(c, ws);
  const { handler, answered } = caseHandler(c, { ws });
  await using server = startFakeAnthropicServer({ handler });
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake" };
  const flags = ["--output-format", "stream-json", "--verbose", "--trust-workspace"];
  const earlier = await box.run(["-p", c.earlier!, ...flags], { env });
  assert.equal(earlier.code, 0, earlier.stderr);
  const run = await box.run(["-p", c.prompt, "--continue", ...flags], { env });
  const norm = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll("/WS", ws));
  assert.equal(run.code, want.exitCode, `${name}: ${run.stderr}`);
  const stream = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Json);
  const result = stream.find((l) => l.type === "result")!;
  const wantResult = want.stream.find((l) => l.type === "result")!;
  for (const key of ["subtype", "is_error", "num_turns"]) {
    assert.deepEqual(result[key], wantResult[key], `${name}: result.${key}`);
  }

  const got = await hookInputs(ws);
  assert.deepEqual(got.map((i) => i.hook), want.inputs.map((i) => i.hook), `${name}: hooks run`);
  got.forEach(({ input }, i) => {
    const expected = norm(want.inputs[i]!.input) as Json;
    for (const k of [...SAME_VALUE, "trigger", "custom_instructions"]) {
      assert.deepEqual(input[k], expected[k], `${name}: ${k} in ${JSON.stringify(input)}`);
    }
    for (const k of SAME_KIND) assert.equal(typeof input[k], typeof expected[k], `${name}: ${k}`);
    const keys = (o: Json) => Object.keys(o).filter((k) => !CLAUDE_ONLY.has(k)).sort();
    assert.deepEqual(keys(input), keys(expected), `${name}: PreCompact input fields`);
  });

  assert.equal(answered.length, want.requests.length, `${name}: model requests`);
  const wantSummary = want.requests.at(-1)!.last.map((b) => b.text ?? "").join("\n");
  const summary = textsOf((answered.at(-1)!.body.messages ?? []).slice(-1)).map((b) => b.text ?? "").join(
    "\n",
  );
  const instructions = "keep the numbers\n\nalso keep the names";
  assert.equal(
    wantSummary.includes(instructions),
    name === "hooks_precompact",
    `${name}: Claude Code's summary`,
  );
  assert.equal(
    summary.includes(instructions),
    name === "hooks_precompact",
    `${name}: Blade's summary request`,
  );

  // A block: Claude Code's words (its status line's `compact_error`), the session not compacted.
  const blocked = want.stream.find((l) => typeof l.compact_error === "string")?.compact_error;
  if (blocked !== undefined) {
    const words = norm(String(blocked).replace(/^skipped: /, ""));
    assert.ok(run.stderr.includes(words), `${name}: ${JSON.stringify(words)} in ${run.stderr}`);
  }
  assert.equal(
    stream.some((l) => l.subtype === "compact_boundary"),
    want.stream.some((l) => l.subtype === "compact_boundary"),
    `${name}: compact_boundary`,
  );
  // A passing hook's stdout shown after the compaction: Claude Code's replayed local-command line.
  const replayed = (lines: Json[]) =>
    lines.filter((l) => l.type === "user" && l.isReplay === true).map((l) => ({
      message: l.message,
      parent_tool_use_id: l.parent_tool_use_id,
    }));
  assert.deepEqual(replayed(stream), norm(replayed(want.stream)), `${name}: replayed hook output`);
}

for (const name of ["hooks_precompact", "hooks_precompact_block"]) {
  Deno.test(`hooks golden: ${name} as Claude Code 2.1.332`, () => comparePreCompact(name));
}

// An `agent` hook's verifier is a child of the session: never a tool the session does not have.
Deno.test("agent hooks: the verifier never has a tool its session lacks (--disallowed-tools Grep)", async () => {
  const c = HOOK_CASES.find((x) => x.name === "hooks_agent_block")!;
  await using box = await bladeSandbox();
  await writeCase(c, box.workspace);
  const { handler, verifiers } = caseHandler(c, { ws: box.workspace });
  await using server = startFakeAnthropicServer({ handler });
  const run = await box.run(
    ["-p", c.prompt, "--output-format", "json", "--trust-workspace", "--disallowed-tools", "Grep"],
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake" } },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(verifiers.length, 1);
  assert.deepEqual(verifierRequest(verifiers[0]!.body).tools.toSorted(), [
    "Bash",
    "Glob",
    "Read",
    "StructuredOutput",
  ]);
  const result = JSON.parse(run.stdout);
  assert.deepEqual(result.permission_denials.map((d: { tool_name: string }) => d.tool_name), ["Bash"]);
});

Deno.test("command hooks' default timeout is Claude Code 2.1.332's: past 70 s, stopped at 600 s", async () => {
  // Recorded (tests/support/claude_hook_cases.ts, hooks_command_default_timeout_*): a PreToolUse command
  // hook with no `timeout` sleeps, then answers "deny". Too slow to run Blade on here: its timeout is
  // read from the same function the hooks run with (lib/hooks/hook_timeout.ts).
  const resultOf = (r: Recorded) => r.stream.find((l) => l.type === "result")!;
  const toolResults = (r: Recorded) =>
    r.stream.flatMap((l) =>
      l.type === "user"
        ? ((l.message as { content: Json[] }).content ?? []).filter((b) => b.type === "tool_result")
        : []
    );
  const past70 = await recorded("hooks_command_default_timeout_70");
  assert.equal(past70.exitCode, 0);
  // The hook ran its 70 s and its deny stopped the call.
  assert.deepEqual(toolResults(past70).map((b) => [b.content, b.is_error]), [
    ["PreToolUse:Bash hook error: the hook answered after 70 s", true],
  ]);
  assert.ok(Number(resultOf(past70).duration_ms) >= 70_000);
  const past610 = await recorded("hooks_command_default_timeout_610");
  // Cancelled at its timeout: no answer, and the call ran.
  const response = past610.stream.find((l) => l.subtype === "hook_response")!;
  assert.equal(response.outcome, "cancelled");
  assert.deepEqual(toolResults(past610).map((b) => [b.content, b.is_error]), [["ran", false]]);
  const took = Number(resultOf(past610).duration_ms);
  assert.ok(took >= 600_000 && took < 610_000, `ran ${took} ms`);
  const seconds = hookTimeoutSeconds({ run: { command: "bash slow.sh" } });
  assert.equal(seconds, 600);
  assert.ok(seconds > 70 && seconds * 1000 <= took);
});
