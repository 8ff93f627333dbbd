// The hook cases of the Claude Code golden comparison (docs/guides/hooks.md): per case, real bash hook
// scripts that log their stdin, the settings `hooks` object, more project files (an agent file with its
// own hooks) and the model's scripted turns, a subagent's apart. Used by scripts/record_claude_hooks.ts
// (records Claude Code 2.1.332 into tests/fixtures/claude/hooks_*/) and tests/claude_hooks_golden_test.ts
// (runs Blade on the same case and compares).

import {
  type FakeHandler,
  type FakeResponse,
  fakeTurn,
  type RecordedRequest,
} from "../../lib/testing/fake_anthropic_server.ts";
import { type AnthropicRequestBody, wireBlocks } from "../../lib/provider/anthropic_wire.ts";

/** One recorded case: hook scripts (`name` → bash body reading `$input`), settings, the model's turns. */
export interface HookCase {
  name: string;
  prompt: string;
  /** A prompt run first, in its own run; `prompt` then continues that session (`--continue`). */
  earlier?: string;
  scripts: Record<string, string>;
  /** The settings `hooks` object; `$WS` in a command is the project folder. */
  hooks: Record<string, unknown>;
  allow: string[];
  /** More files of the project (an agent file), `$WS` replaced. */
  files?: Record<string, string>;
  turns: FakeResponse[];
  /** A subagent's turns: requests whose system prompt has `marker` get these. */
  child?: { marker: string; turns: FakeResponse[] };
  /** The model's answers to side requests (a `prompt` hook's), in order; else an empty answer. */
  side?: string[];
  /**
   * An `agent` hook's verifier turns: requests that offer the StructuredOutput tool get these, in order
   * (`hang`: one that never answers in time, for the hook's timeout).
   */
  verifier?: (FakeResponse | "hang")[];
}

const command = (script: string) => ({ type: "command", command: `bash $WS/${script}.sh` });

/** A `prompt` hook (a side request to the model); its answers are the case's `side`. */
const prompt = (text: string) => ({ type: "prompt", prompt: text });

/** An `agent` hook (a verifier subagent judges the event); its turns are the case's `verifier`. */
const agent = (text: string, more: Record<string, unknown> = {}) => ({
  type: "agent",
  prompt: text,
  ...more,
});

/** A verifier's final answer through its StructuredOutput tool. */
const verdict = (json: unknown) =>
  fakeTurn({ toolCalls: [{ name: "StructuredOutput", input: json as Record<string, unknown> }] });

/** A hook answering with one JSON object. */
const answer = (json: unknown) => `echo '${JSON.stringify(json)}'`;

export const HOOK_CASES: HookCase[] = [
  {
    // UserPromptSubmit blocking by exit 2: the prompt is not sent, the reason is shown.
    name: "hooks_prompt_block",
    prompt: "Do the secret thing.",
    scripts: { ups: `echo "Prompts about secrets are refused" >&2; exit 2` },
    hooks: { UserPromptSubmit: [{ hooks: [command("ups")] }] },
    allow: [],
    turns: [fakeTurn({ text: "Should not be asked." })],
  },
  {
    // UserPromptSubmit's additionalContext by JSON.
    name: "hooks_prompt_json",
    prompt: "Hello there.",
    scripts: {
      ups: answer({
        hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "json prompt context" },
      }),
    },
    hooks: { UserPromptSubmit: [{ hooks: [command("ups")] }] },
    allow: [],
    turns: [fakeTurn({ text: "Hi." })],
  },
  {
    // UserPromptSubmit blocking by JSON (`decision: "block"`).
    name: "hooks_prompt_json_block",
    prompt: "Tell me the password.",
    scripts: { ups: answer({ decision: "block", reason: "No passwords here" }) },
    hooks: { UserPromptSubmit: [{ hooks: [command("ups")] }] },
    allow: [],
    turns: [fakeTurn({ text: "Should not be asked." })],
  },
  {
    // SessionStart's plain stdout (exit 0, not JSON): added for the model as Claude Code words it.
    name: "hooks_session_start_plain",
    prompt: "Hello.",
    scripts: { ss: "echo 'plain start context'" },
    hooks: { SessionStart: [{ hooks: [command("ss")] }] },
    allow: [],
    turns: [fakeTurn({ text: "Hi." })],
  },
  {
    // One session through every main-thread event: SessionStart context, UserPromptSubmit's plain
    // stdout, PreToolUse blocks (exit 2, JSON deny) and a pass, PostToolUse context, a Stop hook that
    // forces one more step, SessionEnd.
    name: "hooks_events",
    prompt: "Do it.",
    scripts: {
      ss: answer({
        hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "session start context" },
      }),
      ups: "echo 'prompt context plain'",
      pre: `if grep -q forbidden <<<"$input"; then echo "No forbidden commands" >&2; exit 2; fi
if grep -q jsondeny <<<"$input"; then ${
        answer({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: "json says no",
          },
        })
      }; fi`,
      post: answer({
        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "post context here" },
      }),
      stop: `if grep -q '"stop_hook_active":false' <<<"$input"; then echo "Please say DONE" >&2; exit 2; fi`,
      send: "true",
    },
    hooks: {
      SessionStart: [{ hooks: [command("ss")] }],
      UserPromptSubmit: [{ hooks: [command("ups")] }],
      PreToolUse: [{ matcher: "Bash", hooks: [command("pre")] }],
      PostToolUse: [{ matcher: "Bash", hooks: [command("post")] }],
      Stop: [{ hooks: [command("stop")] }],
      SessionEnd: [{ hooks: [command("send")] }],
    },
    allow: ["Bash"],
    turns: [
      fakeTurn({
        text: "Running.",
        toolCalls: [{ name: "Bash", input: { command: "echo forbidden", description: "x" } }],
      }),
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo jsondeny", description: "y" } }] }),
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo fine", description: "z" } }] }),
      fakeTurn({ text: "First final." }),
      fakeTurn({ text: "DONE" }),
    ],
  },
  {
    // A subagent: SubagentStart (context for the child) and SubagentStop (blocking once) in the
    // parent's settings, the parent's PreToolUse seeing the child's calls, and the agent file's own
    // hooks (a PreToolUse that blocks only inside that agent, a Stop hook) scoped to its run.
    name: "hooks_subagent",
    prompt: "Delegate it.",
    scripts: {
      sstart: answer({
        hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "child start context" },
      }),
      sstop:
        `if grep -q '"stop_hook_active":false' <<<"$input"; then echo "Child must say CHILD DONE" >&2; exit 2; fi`,
      pre: "true",
      post: "true",
      stop: "true",
      agentpre: `if grep -q agentonly <<<"$input"; then echo "Not inside the checker" >&2; exit 2; fi`,
      agentstop: "true",
    },
    hooks: {
      SubagentStart: [{ hooks: [command("sstart")] }],
      SubagentStop: [{ hooks: [command("sstop")] }],
      PreToolUse: [{ matcher: "Bash", hooks: [command("pre")] }],
      PostToolUse: [{ matcher: "Bash", hooks: [command("post")] }],
      Stop: [{ hooks: [command("stop")] }],
    },
    files: {
      ".claude/agents/checker.md": `---
name: checker
description: Checks things when asked to check.
tools: Bash
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: bash $WS/agentpre.sh
  Stop:
    - hooks:
        - type: command
          command: bash $WS/agentstop.sh
---
You check things.
`,
    },
    allow: ["Bash"],
    turns: [
      fakeTurn({
        toolCalls: [{
          name: "Task",
          input: {
            description: "Check it",
            prompt: "Check it carefully.",
            subagent_type: "checker",
            run_in_background: false,
          },
        }],
      }),
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo agentonly", description: "c" } }] }),
      fakeTurn({ text: "Parent done." }),
    ],
    child: {
      marker: "You check things.",
      turns: [
        fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo agentonly", description: "a" } }] }),
        fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo child-ok", description: "b" } }] }),
        fakeTurn({ text: "child final" }),
        fakeTurn({ text: "CHILD DONE" }),
      ],
    },
  },
  {
    // PreCompact on a manual compaction (`/compact <instructions>` continuing a session), matched by
    // its trigger (the `auto` hook is not run); its plain stdout joins the summary's instructions.
    name: "hooks_precompact",
    earlier: "Remember 42 and 7.",
    prompt: "/compact keep the numbers",
    scripts: { manual: "echo 'also keep the names'", auto: "true" },
    hooks: {
      PreCompact: [{ matcher: "manual", hooks: [command("manual")] }, {
        matcher: "auto",
        hooks: [command("auto")],
      }],
    },
    allow: [],
    turns: [
      fakeTurn({ text: "Noted: 42 and 7." }),
      fakeTurn({ text: "<summary>The numbers 42 and 7.</summary>" }),
    ],
  },
  {
    // PreCompact exit 2 blocks a manual compaction: the conversation is not compacted, the reason is said.
    name: "hooks_precompact_block",
    earlier: "Remember 42 and 7.",
    prompt: "/compact keep the numbers",
    scripts: { manual: `echo "Not now" >&2; exit 2`, auto: "true" },
    hooks: {
      PreCompact: [{ matcher: "manual", hooks: [command("manual")] }, {
        matcher: "auto",
        hooks: [command("auto")],
      }],
    },
    allow: [],
    turns: [fakeTurn({ text: "Noted: 42 and 7." }), fakeTurn({ text: "Should not be asked." })],
  },
  {
    // PostToolUse's `tool_response` for each built-in file and shell tool (the per-tool object Claude
    // Code builds from the tool's result, not the text the model sees), and what the model sees of a
    // command that printed nothing. `$WS` in a call's input is the project folder. (Claude Code 2.1.332
    // offers no Glob or Grep tool to record: lib/tools/hook_response.ts says where their shapes come from.)
    name: "hooks_tool_response",
    prompt: "Use the tools.",
    scripts: {
      pre: "true",
      post: "true",
      failed: answer({
        hookSpecificOutput: {
          hookEventName: "PostToolUseFailure",
          additionalContext: "failure context here",
        },
      }),
    },
    hooks: {
      PreToolUse: [{ hooks: [command("pre")] }],
      PostToolUse: [{ hooks: [command("post")] }],
      PostToolUseFailure: [{ hooks: [command("failed")] }],
    },
    allow: ["Bash", "Read", "Write", "Edit"],
    turns: [
      fakeTurn({
        toolCalls: [{
          name: "Write",
          input: { file_path: "$WS/notes.txt", content: "alpha\nbeta\ngamma\n" },
        }],
      }),
      fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "$WS/notes.txt" } }] }),
      fakeTurn({
        toolCalls: [{
          name: "Edit",
          input: { file_path: "$WS/notes.txt", old_string: "beta", new_string: "BETA" },
        }],
      }),
      fakeTurn({
        toolCalls: [{
          name: "Write",
          input: { file_path: "$WS/notes.txt", content: "alpha\nBETA\ndelta\n" },
        }],
      }),
      fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "$WS/notes.txt", offset: 2, limit: 1 } }] }),
      fakeTurn({
        toolCalls: [{
          name: "Bash",
          input: { command: "echo out; echo err >&2", description: "both streams" },
        }],
      }),
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "true", description: "quiet" } }] }),
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "mkdir -p made", description: "dir" } }] }),
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "mv made moved", description: "move" } }] }),
      fakeTurn({
        toolCalls: [{ name: "Bash", input: { command: "echo partial; exit 3", description: "fails" } }],
      }),
      fakeTurn({ text: "Used them." }),
    ],
  },
  {
    // PostToolUseFailure's `decision: "block"` and a PostToolUse block, after a failed and a passed call.
    name: "hooks_failure_block",
    prompt: "Run them.",
    scripts: {
      failed: answer({ decision: "block", reason: "failure blocked here" }),
      post: answer({ decision: "block", reason: "post blocked here" }),
    },
    hooks: {
      PostToolUseFailure: [{ hooks: [command("failed")] }],
      PostToolUse: [{ hooks: [command("post")] }],
    },
    allow: ["Bash"],
    turns: [
      fakeTurn({
        toolCalls: [{ name: "Bash", input: { command: "echo partial; exit 3", description: "fails" } }],
      }),
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo fine", description: "passes" } }] }),
      fakeTurn({ text: "Done." }),
    ],
  },
  {
    // A `prompt` hook on PreToolUse: the model's `{"ok": false}` refuses the call and ends the run.
    name: "hooks_prompt_pretool",
    prompt: "Go.",
    scripts: {},
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [prompt("Is this command safe? $ARGUMENTS")] }] },
    allow: ["Bash"],
    turns: [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo one", description: "x" } }] }),
      fakeTurn({ text: "Should not be asked." }),
    ],
    side: [JSON.stringify({ ok: false, reason: "model says no" })],
  },
  {
    // A `prompt` hook without $ARGUMENTS (the input appended) lets the call run; a Stop `prompt` hook
    // asks about the conversation, blocks once (its reason back to the model), then lets it end.
    name: "hooks_prompt_stop",
    prompt: "Go.",
    scripts: {},
    hooks: {
      PreToolUse: [{ matcher: "Bash", hooks: [prompt("Allow only echo commands.")] }],
      Stop: [{ hooks: [prompt("The assistant said DONE. $ARGUMENTS")] }],
    },
    allow: ["Bash"],
    turns: [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo one", description: "x" } }] }),
      fakeTurn({ text: "Final." }),
      fakeTurn({ text: "DONE" }),
    ],
    side: [
      JSON.stringify({ ok: true, reason: "only echo" }),
      JSON.stringify({ ok: false, reason: "it did not say DONE" }),
      JSON.stringify({ ok: true, reason: "it said DONE" }),
    ],
  },
  {
    // A `prompt` hook whose model answers no JSON: no verdict, the call runs.
    name: "hooks_prompt_invalid",
    prompt: "Go.",
    scripts: {},
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [prompt("Is this command safe? $ARGUMENTS")] }] },
    allow: ["Bash"],
    turns: [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo one", description: "x" } }] }),
      fakeTurn({ text: "Final." }),
    ],
    side: ["not json at all"],
  },
  {
    // An `agent` hook: a verifier subagent (its own tools and a StructuredOutput tool) judges the call;
    // `ok: false` refuses it and ends the run, as a `prompt` hook's refusal does.
    name: "hooks_agent_block",
    prompt: "Go.",
    scripts: {},
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [agent("Check this command is safe: $ARGUMENTS")] }] },
    allow: ["Bash"],
    turns: [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo one", description: "x" } }] }),
      fakeTurn({ text: "Should not be asked." }),
    ],
    verifier: [verdict({ ok: false, reason: "verifier says no" })],
  },
  {
    // The verifier uses a tool before answering `ok: true` (does it write? the marker file tells),
    // then the call runs.
    name: "hooks_agent_allow",
    prompt: "Go.",
    scripts: {},
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [agent("Allow only echo commands.")] }] },
    allow: ["Bash"],
    turns: [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo one", description: "x" } }] }),
      fakeTurn({ text: "Final." }),
    ],
    verifier: [
      fakeTurn({
        toolCalls: [{
          name: "Bash",
          input: { command: "echo verifier > $WS/verifier_wrote.txt", description: "v" },
        }],
      }),
      verdict({ ok: true, reason: "only echo" }),
    ],
  },
  {
    // A verifier that ends without calling StructuredOutput: no verdict.
    name: "hooks_agent_noverdict",
    prompt: "Go.",
    scripts: {},
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [agent("Is this command safe? $ARGUMENTS")] }] },
    allow: ["Bash"],
    turns: [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo one", description: "x" } }] }),
      fakeTurn({ text: "Final." }),
    ],
    verifier: [
      fakeTurn({ text: "It looks fine to me." }),
      fakeTurn({ text: "Still fine." }),
      fakeTurn({ text: "Fine." }),
    ],
  },
  {
    // A verifier that does not answer within the hook's `timeout` (2 s).
    name: "hooks_agent_timeout",
    prompt: "Go.",
    scripts: {},
    hooks: {
      PreToolUse: [{ matcher: "Bash", hooks: [agent("Is this command safe? $ARGUMENTS", { timeout: 2 })] }],
    },
    allow: ["Bash"],
    turns: [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo one", description: "x" } }] }),
      fakeTurn({ text: "Final." }),
    ],
    verifier: ["hang"],
  },
  // A command hook's default timeout (no `timeout` field): a PreToolUse hook that answers "deny" after
  // sleeping longer than 60 s, and one past 600 s. Recorded only (Blade does not run these minutes-long
  // cases; tests/hooks_default_timeout_test.ts reads what Claude Code did): whether the hook's late deny
  // still lands tells whether it was killed first, and the result's duration_ms when.
  ...[70, 610].map((seconds): HookCase => ({
    name: `hooks_command_default_timeout_${seconds}`,
    prompt: "Run it.",
    scripts: {
      slow: `sleep ${seconds}; ${
        answer({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: `the hook answered after ${seconds} s`,
          },
        })
      }`,
    },
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [command("slow")] }] },
    allow: ["Bash"],
    turns: [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo ran", description: "run" } }] }),
      fakeTurn({ text: "Finished." }),
    ],
  })),
];

/**
 * Writes the case into the project folder `ws`: each script (logging its stdin as one
 * `{"hook", "input"}` line to `ws/hook_inputs.jsonl`, then its body), the other files and
 * `.claude/settings.json`, `$WS` replaced by `ws`.
 */
export async function writeCase(c: HookCase, ws: string): Promise<void> {
  for (const [name, body] of Object.entries(c.scripts)) {
    await Deno.writeTextFile(
      `${ws}/${name}.sh`,
      `input=$(cat)\nprintf '{"hook":"%s","input":%s}\\n' '${name}' "$input" >> '${ws}/hook_inputs.jsonl'\n${body}\n`,
    );
  }
  for (const [path, text] of Object.entries(c.files ?? {})) {
    await Deno.mkdir(`${ws}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${ws}/${path}`, text.replaceAll("$WS", ws));
  }
  const hooks = JSON.parse(JSON.stringify(c.hooks).replaceAll("$WS", ws));
  await Deno.mkdir(`${ws}/.claude`, { recursive: true });
  await Deno.writeTextFile(
    `${ws}/.claude/settings.json`,
    JSON.stringify({ hooks, permissions: { allow: c.allow } }),
  );
}

/** The hook scripts' inputs, in the order they ran (what each logged). */
export async function hookInputs(ws: string): Promise<{ hook: string; input: Record<string, unknown> }[]> {
  const text = await Deno.readTextFile(`${ws}/hook_inputs.jsonl`).catch(() => "");
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

/**
 * The fake model server's handler for the case: requests with tools get the scripted turns in order
 * (a subagent's requests, known by `child.marker` in their system prompt, get the child's), side
 * requests an empty answer. The delegation call is named as the request's tools name it (Claude
 * Code's `Task`, Blade's `Agent`); `$WS` in a call's input is `options.ws`. `answered` collects the requests that got a scripted turn.
 */
export function caseHandler(c: HookCase, options: { ws?: string } = {}): {
  handler: FakeHandler<AnthropicRequestBody>;
  answered: RecordedRequest<AnthropicRequestBody>[];
  /** The side requests (no tools) the case's `side` answered. */
  sides: RecordedRequest<AnthropicRequestBody>[];
  /** An `agent` hook's verifier requests (they offer StructuredOutput), the case's `verifier` answered. */
  verifiers: RecordedRequest<AnthropicRequestBody>[];
} {
  const queue = [...c.turns];
  const childQueue = [...c.child?.turns ?? []];
  const sideQueue = [...c.side ?? []];
  const verifierQueue = [...c.verifier ?? []];
  const verifiers: RecordedRequest<AnthropicRequestBody>[] = [];
  const answered: RecordedRequest<AnthropicRequestBody>[] = [];
  const sides: RecordedRequest<AnthropicRequestBody>[] = [];
  return {
    answered,
    sides,
    verifiers,
    handler: async (request) => {
      const body = request.body as AnthropicRequestBody & { tools?: { name: string }[] };
      if (request.path !== "/v1/messages") return fakeTurn({});
      if ((body.tools ?? []).some((t) => t.name === "StructuredOutput")) {
        verifiers.push(request);
        const turn = verifierQueue.shift() ?? fakeTurn({ text: "Out of script." });
        if (turn === "hang") {
          await new Promise((resolve) => setTimeout(resolve, 4000));
          return fakeTurn({ text: "Too late." });
        }
        return withWs(turn, options.ws);
      }
      if ((body.tools ?? []).length === 0) {
        const text = sideQueue.shift();
        if (text === undefined) return fakeTurn({});
        sides.push(request);
        return fakeTurn({ text });
      }
      answered.push(request);
      const turn = (isChild(c, body) ? childQueue : queue).shift() ?? fakeTurn({ text: "Out of script." });
      const delegation = (body.tools ?? []).some((t) => t.name === "Agent") ? "Agent" : "Task";
      if (turn.kind !== "turn" || turn.toolCalls === undefined) return turn;
      const ws = (input: Record<string, unknown> | undefined) =>
        options.ws === undefined || input === undefined
          ? input
          : JSON.parse(JSON.stringify(input).replaceAll("$WS", options.ws));
      return {
        ...turn,
        toolCalls: turn.toolCalls.map((call) => ({
          ...call,
          name: call.name === "Task" ? delegation : call.name,
          input: ws(call.input),
        })),
      };
    },
  };
}

/** A turn with `$WS` in its tool calls' inputs replaced by the project folder. */
function withWs(turn: FakeResponse, ws: string | undefined): FakeResponse {
  if (ws === undefined || turn.kind !== "turn" || turn.toolCalls === undefined) return turn;
  return {
    ...turn,
    toolCalls: turn.toolCalls.map((call) => ({
      ...call,
      input: call.input === undefined
        ? undefined
        : JSON.parse(JSON.stringify(call.input).replaceAll("$WS", ws)),
    })),
  };
}

/** Whether the request is the case's subagent's (its system prompt has the marker). */
export function isChild(c: HookCase, body: AnthropicRequestBody): boolean {
  return c.child !== undefined && JSON.stringify(body.system ?? "").includes(c.child.marker);
}

/** The text blocks of a message list, one entry each (tool results' content as text). */
export function textsOf(messages: AnthropicRequestBody["messages"]) {
  return (messages ?? []).flatMap((m) =>
    typeof m.content === "string"
      ? [{ role: m.role as string, type: "text", text: m.content }]
      : (m.content as Array<{ type: string; text?: string; content?: unknown }>).map((b) => ({
        role: m.role as string,
        type: b.type,
        text: b.text ?? (typeof b.content === "string" ? b.content : JSON.stringify(b.content)),
      }))
  );
}

/**
 * The system turns (`role: "system"` messages) of a request, each as sent: the message before it (its
 * role and last block's type), the content's form (`string`, or `blocks` when it carries the cache
 * breakpoint) and the hook paragraphs of its text (`<Event> hook success: …`, `… hook additional
 * context: …`; Claude Code's environment turn holds more, which Blade keeps in its system prompt).
 */
export function systemTurns(body: AnthropicRequestBody): SystemTurn[] {
  const messages = body.messages ?? [];
  return messages.flatMap((m, i) => {
    if ((m.role as string) !== "system") return [];
    const before = messages[i - 1];
    const last = before === undefined ? undefined : wireBlocks(before).at(-1);
    const text = wireBlocks(m).map((b) => b.type === "text" ? b.text : "").join("\n\n");
    return [{
      after: before === undefined ? "" : `${before.role}/${last?.type ?? ""}`,
      form: typeof m.content === "string" ? "string" : "blocks",
      hooks: text.split("\n\n").filter((p) => HOOK_PARAGRAPH.test(p)),
      text,
    }];
  });
}

/** A system turn as systemTurns reports it (`text` is the whole text, for Blade's side of a comparison). */
export interface SystemTurn {
  after: string;
  form: "string" | "blocks";
  hooks: string[];
  text: string;
}

/** A paragraph Claude Code writes for a hook's output or added context. */
export const HOOK_PARAGRAPH = /^\S+ hook (success|additional context|blocking error from command): /;

/**
 * A `prompt` hook's side request as compared: its system prompt's last text (the hook evaluator's
 * instructions: Claude Code's earlier blocks are its billing header and SDK identity), each message's
 * role and texts, and the JSON schema its answer must follow.
 */
/**
 * An `agent` hook's verifier request as recorded: its system prompt, its messages' text blocks, the
 * names of the tools it offers and the StructuredOutput tool's schema.
 */
export function verifierRequest(
  body: AnthropicRequestBody & { tools?: { name: string; input_schema?: unknown }[] },
) {
  const system = body.system ?? [];
  return {
    system: typeof system === "string" ? system : system.map((b) => b.text),
    messages: textsOf(body.messages ?? []).map(({ role, type, text }) => ({ role, type, text })),
    tools: (body.tools ?? []).map((t) => t.name),
    structuredOutput:
      (body.tools ?? []).flatMap((t) =>
        t.name === "StructuredOutput" && "input_schema" in t ? [t.input_schema] : []
      )[0],
  };
}

export function sideRequest(body: AnthropicRequestBody & { output_config?: { format?: unknown } }) {
  const system = body.system ?? [];
  return {
    system: typeof system === "string" ? system : system.at(-1)?.text ?? "",
    messages: textsOf(body.messages ?? []).map(({ role, type, text }) => ({ role, type, text })),
    format: body.output_config?.format,
  };
}

/** The system prompt's lines that a hook added (Claude Code puts some hook context there). */
export function systemHookLines(body: AnthropicRequestBody): string[] {
  const system = body.system;
  const text = typeof system === "string"
    ? system
    : (system ?? []).map((b: { text?: string }) => b.text ?? "").join("\n");
  return text.split("\n").filter((l) => /hook/i.test(l) && !/^- /.test(l) && l.length < 2000);
}
