// Owns firing one hook event (docs/guides/hooks.md): which configured hooks match it (settings and
// agent-file commands, and the Agent SDK's callbacks, one model for all), running them in parallel
// as Claude Code does, each bounded by its timeout (default 60 s), and merging their answers
// (hook_output.ts). A hook that hangs hits its timeout and one that crashes is reported: the session
// goes on. How a command starts (the session's OS sandbox) is the runner's (hook_command.ts); what the
// merged answer does to the session is the caller's (session_hooks.ts). Observers see each run start
// and end (stream-json's `hook_started`/`hook_response`, `--debug`'s timing lines).

import type { HookCallbacks } from "../protocol/hook_callbacks.ts";
import type { Clock } from "../sys/clock.ts";
import { type HookEntry, type HookEvent, matcherMatches } from "../protocol/hook_config.ts";
import { hookTimeoutSeconds } from "./hook_timeout.ts";
import { type HookEnd, type HookVerdict, mergeVerdicts, verdictOf } from "./hook_output.ts";
import type { Message } from "../protocol/messages.ts";
import { NO_VERDICT, type PromptHookAsk, promptHookRequest, promptHookVerdict } from "./prompt_hook.ts";
import { agentHookRequest, agentHookVerdict, type AgentHookVerify } from "./agent_hook.ts";

/** Starts one command hook with its JSON input on stdin (in the session's sandbox: hook_command.ts). */
export type HookCommandRunner = (
  command: string,
  o: { stdin: string; timeoutMs: number; signal: AbortSignal },
) => Promise<HookEnd>;

/** One hook run, as observers see it. */
export type HookRun =
  | { phase: "started"; id: string; name: string; event: HookEvent }
  | {
    phase: "ended";
    id: string;
    name: string;
    event: HookEvent;
    /** What the hook printed (an SDK callback: its JSON answer). */
    stdout: string;
    stderr: string;
    exitCode: number | undefined;
    outcome: "success" | "error" | "cancelled";
    ms: number;
    /** Where it was configured, and what ran. */
    where: string;
    label: string;
  };

export interface HookEngineOptions {
  /** The Agent SDK's callbacks (read on each event: they are registered by `initialize`). */
  callbacks?: HookCallbacks | undefined;
  clock: Pick<Clock, "now">;
  newId: () => string;
  /** Sees each run start and end. */
  observe?: ((run: HookRun) => void) | undefined;
}

/** What firing an event needs besides its input. */
export interface FireOptions {
  /** What the matcher is matched against: the tool name, SessionStart's source, …; undefined: all. */
  match?: string | undefined;
  /** The run's name for observers (default `Event:match`, or `Event`). */
  name?: string | undefined;
  toolUseId?: string | undefined;
  signal: AbortSignal;
  /** Runs command hooks (in the sandbox of the session whose event this is). */
  run: HookCommandRunner;
  /** Asks the model for `prompt` hooks (absent: they give no verdict, said as a warning). */
  ask?: PromptHookAsk | undefined;
  /** Runs `agent` hooks' verifiers (absent: they give no verdict, said as a warning). */
  verify?: AgentHookVerify | undefined;
  /** The conversation so far (a Stop or SubagentStop `prompt` hook judges it). */
  transcript?: readonly Message[] | undefined;
}

export class HookEngine {
  readonly #hooks: readonly HookEntry[];
  readonly #o: HookEngineOptions;

  constructor(hooks: readonly HookEntry[], options: HookEngineOptions) {
    this.#hooks = hooks;
    this.#o = options;
  }

  /** The hooks configured, SDK callbacks included (`blade hooks list`). */
  entries(): HookEntry[] {
    const sdk: HookEntry[] = [];
    const callbacks = this.#o.callbacks;
    for (const event of callbacks?.events() ?? []) {
      for (const m of callbacks!.matchers(event)) {
        for (const callbackId of m.callbackIds) {
          sdk.push({
            event: event as HookEvent,
            matcher: m.matcher,
            run: { callbackId },
            timeoutSeconds: m.timeoutSeconds,
            source: "sdk",
            where: "Agent SDK",
          });
        }
      }
    }
    return [...this.#hooks, ...sdk];
  }

  /** Whether any hook listens to `event` (a session without hooks pays nothing). */
  has(event: HookEvent): boolean {
    return this.#hooks.some((h) => h.event === event) ||
      (this.#o.callbacks?.events().includes(event) ?? false);
  }

  /** This engine and `more` hooks (an agent's own, for its run). */
  with(more: readonly HookEntry[]): HookEngine {
    return more.length === 0 ? this : new HookEngine([...this.#hooks, ...more], this.#o);
  }

  /** Runs `event`'s matching hooks in parallel with `input` (Claude Code's fields); their merged answer. */
  async fire(event: HookEvent, input: Record<string, unknown>, o: FireOptions): Promise<HookVerdict> {
    const matching = this.entries().filter((h) =>
      h.event === event && (o.match === undefined || matcherMatches(h.matcher, o.match))
    );
    if (matching.length === 0) return {};
    const name = o.name ?? (o.match === undefined ? event : `${event}:${o.match}`);
    const stdin = JSON.stringify(input);
    const verdicts = await Promise.all(
      matching.map((hook) => this.#one(hook, { name, input, stdin, fire: o })),
    );
    return mergeVerdicts(verdicts);
  }

  async #one(
    hook: HookEntry,
    c: { name: string; input: Record<string, unknown>; stdin: string; fire: FireOptions },
  ): Promise<HookVerdict> {
    if ("prompt" in hook.run) return await this.#prompt(hook, hook.run, c);
    if ("agent" in hook.run) return await this.#agent(hook, hook.run, c);
    const { clock, newId, observe } = this.#o;
    const id = newId();
    const started = clock.now();
    const event = hook.event;
    observe?.({ phase: "started", id, name: c.name, event });
    const timeoutMs = hookTimeoutSeconds(hook) * 1000;
    const runs = hook.run as { command: string } | { callbackId: string };
    const label = "command" in runs ? runs.command : `Agent SDK callback ${runs.callbackId}`;
    let end: HookEnd;
    if ("command" in runs) {
      end = await c.fire.run(runs.command, { stdin: c.stdin, timeoutMs, signal: c.fire.signal })
        .catch((e) => ({ failed: e instanceof Error ? e.message : String(e) }));
    } else {
      end = await this.#callback(hook, { ...c, callbackId: runs.callbackId });
    }
    if (observe !== undefined) {
      const exitCode = "code" in end ? end.code : "answer" in end ? 0 : undefined;
      observe({
        phase: "ended",
        id,
        name: c.name,
        event,
        stdout: "code" in end ? end.stdout : "answer" in end ? JSON.stringify(end.answer) : "",
        stderr: "code" in end ? end.stderr : "failed" in end ? end.failed : "",
        exitCode,
        outcome: c.fire.signal.aborted ? "cancelled" : exitCode === 0 ? "success" : "error",
        ms: clock.now() - started,
        where: hook.where,
        label,
      });
    }
    return verdictOf(event, end, { label });
  }

  /**
   * A `prompt` hook: one side request through the session's provider, bounded by its timeout (default
   * 30 s). Claude Code 2.1.332 shows no hook lines for it (tests/fixtures/claude/hooks_prompt_*).
   */
  async #prompt(
    hook: HookEntry,
    run: { prompt: string; model?: string | undefined },
    c: { input: Record<string, unknown>; fire: FireOptions },
  ): Promise<HookVerdict> {
    const ask = c.fire.ask;
    if (ask === undefined) return { error: NO_VERDICT, noVerdict: { timedOut: false } };
    const request = promptHookRequest(hook.event, run, { input: c.input, transcript: c.fire.transcript });
    const { end, timedOut } = await bounded((signal) => ask(request, { signal }), {
      hook,
      signal: c.fire.signal,
    });
    if ("failed" in end) return { error: NO_VERDICT, noVerdict: { timedOut } };
    return promptHookVerdict(hook.event, end.text, { label: run.prompt });
  }

  /**
   * An `agent` hook: one verifier run (a child of the session: agent_hook.ts), bounded by its timeout
   * (default 60 s). Claude Code 2.1.332 shows no hook lines for it (tests/fixtures/claude/hooks_agent_*).
   */
  async #agent(
    hook: HookEntry,
    run: { agent: string; model?: string | undefined },
    c: { input: Record<string, unknown>; fire: FireOptions },
  ): Promise<HookVerdict> {
    const verify = c.fire.verify;
    if (verify === undefined) return { error: NO_VERDICT, noVerdict: { timedOut: false } };
    const request = agentHookRequest(hook.event, { prompt: run.agent, model: run.model }, { input: c.input });
    return agentHookVerdict(
      (await bounded((signal) => verify(request, { signal }), { hook, signal: c.fire.signal })).end,
    );
  }

  async #callback(
    hook: HookEntry,
    c: { callbackId: string; input: Record<string, unknown>; fire: FireOptions },
  ): Promise<HookEnd> {
    const call = async (signal: AbortSignal) => ({
      answer: await this.#o.callbacks!.call(c.callbackId, c.input, {
        ...(c.fire.toolUseId === undefined ? {} : { toolUseId: c.fire.toolUseId }),
        signal,
      }),
    });
    const { end, timedOut } = await bounded(call, { hook, signal: c.fire.signal });
    return "failed" in end ? { failed: timedOut ? "timed out" : end.failed } : end;
  }
}

/**
 * `call` under `hook`'s timeout and the event's `signal` (the turn's interruption): its answer, or
 * what it threw as `failed`, and whether the timeout fired. The prompt, agent and SDK callback hooks
 * all run through it; a command's runner bounds its process itself.
 */
async function bounded<T>(
  call: (signal: AbortSignal) => Promise<T>,
  o: { hook: HookEntry; signal: AbortSignal },
): Promise<{ end: T | { failed: string }; timedOut: boolean }> {
  const timeout = AbortSignal.timeout(hookTimeoutSeconds(o.hook) * 1000);
  const end = await call(AbortSignal.any([timeout, o.signal]))
    .catch((e) => ({ failed: e instanceof Error ? e.message : String(e) }));
  return { end, timedOut: timeout.aborted };
}
