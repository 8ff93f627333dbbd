// Owns running a model answer's tool calls for one session: durable identity before execution
// (each call's `prepare()` may rewrite its input and add parts persisted with the call), then each
// call validated by its tool's `schema` (a built-in tool's validator compiled from its generated JSON
// Schema, lib/tools/input_check.ts; an MCP tool's or StructuredOutput's any-object check, the rest
// checked by the server or the tool), gated (the permission gate, then the `beforeToolCall` hook point,
// whose rewritten input is validated and gated again), run, and its result passed to the
// `afterToolCall` hook point (hooks.ts) — concurrent tools (Task) at once, the others one after another
// in call order. A tool never crashes the loop: every failure becomes an error result the model sees.

import { loadBashParser } from "../shell/bash_parser.ts";
import type { Message, ToolCallBlock } from "../protocol/messages.ts";
import type { RuntimeEventSink, TranscriptPart } from "../protocol/events.ts";
import type { Ports } from "../sys/mod.ts";
import type {
  ActiveWorktree,
  AnyTool,
  CommandSetup,
  LiveTools,
  ToolContext,
  ToolResult,
} from "../tools/tool.ts";
import { decide, type GateDecision, searchRefusal } from "../permissions/gate.ts";
import { type ReadScope, readScope } from "../permissions/read_scope.ts";
import { pathArgument, type RuleSet, type ToolRule } from "../protocol/tool_rule.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { canonicalPath, resolveToolPath } from "../tools/paths.ts";
import { basename } from "../path.ts";
import { describeError } from "../errors.ts";
import { canonicalToolName } from "../protocol/tool_names.ts";
import { assignedRefusal, modelInput, withAssigned } from "../protocol/assigned_input.ts";
import type { WebAccess } from "../protocol/web.ts";
import { HookPoints, hookPoints, type LoopHooks, type ToolCallRequest } from "./hooks.ts";
import { fitResult } from "./result_persistence.ts";
import { resultLimit } from "../tools/persisted_output.ts";

export type { ToolCallRequest } from "./hooks.ts";

/** The `beforeToolCall` hook point (hooks.ts) as a type of its own. */
export type BeforeToolCall = NonNullable<LoopHooks["beforeToolCall"]>;

/** Where a session's tools act and under which permissions (the loop and its builder share it). */
export interface ToolPolicy {
  workspaceRoot: string;
  /** The run's `--add-dir` folders (canonical), handed to every tool call. */
  additionalDirs?: readonly string[] | undefined;
  storageRoot: string;
  /** The git worktree the session is isolated in (handed to every tool call). */
  worktree?: ActiveWorktree | undefined;
  /** Environment and shell of the session's commands. */
  commands?: CommandSetup | undefined;
  trusted: boolean;
  mode: PermissionMode;
  /** Settings `env`: added to the environment of the commands tools run. */
  extraEnv?: Record<string, string> | undefined;
  /**
   * Allow, ask and deny rules of the session (the run's flags and settings; for a child also the
   * disallowedTools of its agent and of every agent above it).
   */
  rules: RuleSet;
  /** The `tools` rules of the agent and every agent above it, one layer each (permissions/gate.ts). */
  limits?: readonly (readonly ToolRule[])[] | undefined;
  /** How the session's web tools reach the web (ToolContext.web). */
  web?: WebAccess | undefined;
}

/** The tools of one session and where they act; its `beforeToolCall`/`afterToolCall` hook points (hooks.ts). */
export interface ToolRunnerOptions
  extends ToolPolicy, Pick<LoopHooks, "beforePermission" | "beforeToolCall" | "afterToolCall"> {
  ports: Ports;
  /** The session's tools; a promise while the tool modules still load (a Worker child). */
  tools: readonly AnyTool[] | PromiseLike<readonly AnyTool[]>;
  /** Tools that can change between model requests (MCP servers), looked up after `tools`. */
  live?: LiveTools | undefined;
  sessionId: string;
  emit: RuntimeEventSink;
  /**
   * Asks a person about a call the gate refused as askable (the interactive session,
   * executor/approval_step.ts); without it the refusal stands (print mode, background children).
   */
  ask?: AskApproval | undefined;
  /** Model requests the session may still make, read when a call starts (ToolContext.turnsLeft). */
  turnsLeft?: (() => number | undefined) | undefined;
  /**
   * Where results past their tool's size are saved (result_persistence.ts): the session's
   * `<id>/tool-results` beside its transcript, readable by its Read. Absent: such results are cut.
   */
  resultsDir?: string | undefined;
  /** Removes secrets from a saved result, as from the transcript's lines. */
  redact?: ((text: string) => string) | undefined;
}

export type AskApproval = (
  call: ToolCallBlock,
  gate: { path: string | undefined; reason: string },
  signal: AbortSignal,
) => Promise<{ allowed: true; updatedInput?: Record<string, unknown> } | { allowed: false; message: string }>;

/**
 * The gates' answer: refused, or allowed — with `input` when it changed: a hook's rewrite (gated again
 * before it runs), or the approver's own change, already checked (`checked`).
 */
/** The gate's answer; `byHook`: a PreToolUse hook (beforePermission) refused the call. */
type GateOutcome = GateDecision & { input?: Record<string, unknown>; checked?: boolean; byHook?: boolean };

/** The calls of one answer with their durable identity; `run()` executes them. */
export interface PreparedCalls {
  calls: ToolCallBlock[];
  /** Parts persisted with the assistant message, before anything runs (e.g. a running `subtask_ref`). */
  parts: TranscriptPart[];
  run(): Promise<ToolResult[]>;
}

export class ToolRunner {
  #o: ToolRunnerOptions;
  #hooks: HookPoints;
  #loaded: readonly AnyTool[] | undefined;
  /** The files this session read (ToolContext.readFiles). */
  #read = new Map<string, number | null>();

  constructor(options: ToolRunnerOptions) {
    this.#o = options;
    this.#hooks = new HookPoints(hookPoints(options), { emit: options.emit, sessionId: options.sessionId });
  }

  /** Changes the permission mode for the next calls (the interactive /permissions). */
  configure(change: { mode: PermissionMode }): void {
    this.#o = { ...this.#o, mode: change.mode };
  }

  /** The tools, once loaded. */
  async tools(): Promise<readonly AnyTool[]> {
    return this.#loaded ??= await this.#o.tools;
  }

  /** A tool by name; undefined also while the tools are still loading (only stream-time hints ask then). */
  byName(name: string): AnyTool | undefined {
    const tools = this.#loaded ?? (Array.isArray(this.#o.tools) ? this.#o.tools : undefined);
    const live = this.#o.live;
    // A call may use a tool's older name (`Task` for Agent, `KillShell` for TaskStop).
    const own = canonicalToolName(name);
    return tools?.find((t) => t.name === own) ?? live?.tools().find((t) => t.name === name) ??
      live?.gone?.(name);
  }

  /**
   * A call is known while the answer still streams (its leading fields, then the whole call): let its
   * tool get ready, e.g. start a Worker. May come several times per call; a tool's warm-up is idempotent.
   */
  warm(call: Pick<ToolCallBlock, "name" | "input">): void {
    this.byName(call.name)?.warm?.(call.input);
  }

  /** Gives each call of `message` its durable identity; mutates the calls' inputs as prepared. */
  async prepare(message: Message, signal: AbortSignal): Promise<PreparedCalls> {
    const calls = message.content.filter((b): b is ToolCallBlock => b.type === "tool_call");
    const parts: TranscriptPart[] = [];
    const contexts = new Map<string, ToolContext>();
    if (calls.length > 0) await this.tools();
    for (const call of calls) {
      const ctx = this.#context(call.id, signal);
      contexts.set(call.id, ctx);
      const tool = this.byName(call.name);
      // A key Blade assigns (an Agent call's child id) is never the model's to choose: such a call is
      // refused, and persisted without the key, so nothing (recovery included) reads it as Blade's.
      const refusal = call.inputError === undefined ? assignedRefusal(call.name, call.input) : undefined;
      if (refusal !== undefined) {
        call.input = modelInput(call.name, call.input);
        call.inputError = refusal;
      }
      if (tool?.prepare !== undefined && call.inputError === undefined) {
        const prepared = await tool.prepare(call.input, ctx);
        call.input = prepared.input;
        if (prepared.parts !== undefined) parts.push(...prepared.parts);
      }
    }
    return { calls, parts, run: () => this.#runAll(calls, contexts) };
  }

  #context(callId: string, signal: AbortSignal): ToolContext {
    const o = this.#o;
    const home = o.ports.env.home();
    const scope = { workspaceRoot: o.workspaceRoot, ...(home === undefined ? {} : { home }) };
    const turnsLeft = o.turnsLeft?.();
    return {
      ports: o.ports,
      sessionId: o.sessionId,
      workspaceRoot: o.workspaceRoot,
      ...(o.additionalDirs === undefined ? {} : { additionalDirs: o.additionalDirs }),
      storageRoot: o.storageRoot,
      ...(o.worktree === undefined ? {} : { worktree: o.worktree }),
      ...(o.extraEnv === undefined ? {} : { extraEnv: o.extraEnv }),
      ...(o.commands?.env === undefined ? {} : { commandEnv: o.commands.env }),
      ...(o.commands?.shell === undefined ? {} : { shell: o.commands.shell }),
      trusted: o.trusted,
      mode: o.mode,
      // All or nothing (docs/reference/permissions.md "The OS sandbox"): the network is granted to the
      // commands of a session that may run any command unasked.
      commandNetwork: o.mode === "yolo" ||
        o.rules.allow.some((r) => r.tool === "Bash" && r.specifier === undefined),
      // The rules narrow what its commands may write (docs/reference/permissions.md "The OS sandbox").
      pathRules: { deny: o.rules.deny, limits: o.limits },
      callId,
      signal,
      emit: o.emit,
      readFiles: this.#read,
      web: o.web,
      pathRefusal: (tool, path) => searchRefusal(o.rules, tool, path, scope),
      ...(turnsLeft === undefined ? {} : { turnsLeft }),
    };
  }

  /**
   * A file's text as the session's Read gives it now (compaction_restore.ts re-attaches the files read
   * last); undefined when there is no Read or it fails. Only paths an earlier Read call of this session
   * named come here: they passed the gate then.
   */
  async reread(path: string, signal: AbortSignal): Promise<string | undefined> {
    await this.tools();
    const read = this.byName("Read");
    if (read === undefined) return undefined;
    const input = read.schema.safeParse({ file_path: path });
    if (!input.success) return undefined;
    const result = await read.run(input.data, this.#context("compaction-restore", signal)).catch(() =>
      undefined
    );
    return result === undefined || result.isError ? undefined : result.content;
  }

  /** Concurrent tools (Task) start at once; the others run one after another in call order. */
  async #runAll(calls: ToolCallBlock[], contexts: Map<string, ToolContext>): Promise<ToolResult[]> {
    const pending: Promise<ToolResult>[] = [];
    for (const call of calls) {
      const ctx = contexts.get(call.id)!;
      if (this.byName(call.name)?.concurrent === true) pending.push(this.#runOne(call, ctx));
      else pending.push(Promise.resolve(await this.#runOne(call, ctx)));
    }
    return await Promise.all(pending);
  }

  async #runOne(call: ToolCallBlock, ctx: ToolContext): Promise<ToolResult> {
    const { emit, sessionId } = this.#o;
    emit({ type: "tool_started", sessionId, callId: call.id, name: call.name, input: call.input });
    const ran = await this.#execute(call, ctx);
    const { denied, allowWith, byHook } = ran;
    const result = await fitResult(ran.result, {
      callId: call.id,
      limit: resultLimit({ result: ran.result.maxChars, tool: this.byName(call.name)?.maxResultChars }),
      fs: this.#o.ports.fs,
      dir: this.#o.resultsDir,
      redact: this.#o.redact,
    });
    emit({
      type: "tool_completed",
      sessionId,
      callId: call.id,
      name: call.name,
      isError: result.isError,
      content: result.content,
      ...(denied ? { denied: true } : {}),
      ...(allowWith === undefined ? {} : { allowWith }),
      ...(byHook === true ? { byHook } : {}),
    });
    return result;
  }

  /**
   * Runs one call; `denied` marks a refusal by a gate or the tool (print mode lists them), with the
   * allow rule that would approve it when the gate knows one.
   */
  async #execute(
    call: ToolCallBlock,
    ctx: ToolContext,
  ): Promise<{ result: ToolResult; denied: boolean; allowWith?: string; byHook?: boolean }> {
    const error = (content: string, denied = false) => ({ result: { content, isError: true }, denied });
    const tool = this.byName(call.name);
    if (tool === undefined) {
      const names = [...await this.tools(), ...this.#o.live?.tools() ?? []].map((t) => t.name).join(", ") ||
        "none";
      return error(`Unknown tool "${call.name}". Available tools: ${names}.`);
    }
    if (call.inputError !== undefined) {
      return error(`Invalid tool input for ${call.name}: ${call.inputError}`);
    }
    const parsed = tool.schema.safeParse(call.input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join(
        "; ",
      );
      return error(`Invalid tool input for ${call.name}: ${issues}`);
    }
    const request: ToolCallRequest = { tool, call, input: parsed.data, ctx };
    const gate = await this.#gate(request);
    if (!gate.allow) {
      return {
        ...error(gate.message, true),
        ...(gate.allowWith === undefined ? {} : { allowWith: gate.allowWith }),
        ...(gate.byHook === true ? { byHook: true } : {}),
      };
    }
    // A rewrite (a hook's, an approver's) keeps the keys Blade assigned the call (its child id).
    const given = gate.input === undefined ? undefined : withAssigned(call.name, gate.input, call.input);
    const rewritten = given === undefined
      ? undefined
      : gate.checked === true
      ? { allow: true as const, input: given }
      : await this.#rewrite(request, given);
    if (rewritten !== undefined && !rewritten.allow) return error(rewritten.message, true);
    const input = rewritten === undefined ? parsed.data : rewritten.input;
    if (ctx.signal.aborted) return error("Interrupted before the tool ran.");
    let result: ToolResult;
    try {
      // A read-only command allowed without a rule runs read-only (the OS sandbox's read-only profile).
      result = await tool.run(
        input,
        gate.readOnlyCommand === true ? { ...ctx, readOnlyCommands: true } : ctx,
      );
    } catch (e) {
      return error(`Tool ${call.name} failed unexpectedly: ${describeError(e)}`);
    }
    if (this.#o.afterToolCall !== undefined) result = await this.#hooks.after({ ...request, input }, result);
    return { result, denied: result.denied === true };
  }

  /**
   * An input a `beforeToolCall` hook rewrote: validated by the tool's schema and passed through the
   * permission gate again (no hook, no person asked), so a rewrite gets nowhere the original could not.
   */
  async #rewrite(
    request: ToolCallRequest,
    input: Record<string, unknown>,
  ): Promise<{ allow: true; input: unknown } | { allow: false; message: string }> {
    const { tool, call, ctx } = request;
    const parsed = tool.schema.safeParse(input);
    if (!parsed.success) {
      return { allow: false, message: `A hook rewrote the input of ${call.name} into an invalid one.` };
    }
    const path = await this.#rulePath(tool.name, input, ctx);
    const decision = await this.#permission({ tool, call: { ...call, input } }, path);
    if (!decision.allow) return decision;
    // The call stays as the model made it (persisted, and in the conversation); the tool runs this.
    return { allow: true, input: parsed.data };
  }

  /** The real path a path rule is matched against (undefined when the tool has no path or it cannot be resolved). */
  async #rulePath(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolContext,
  ): Promise<string | undefined> {
    const argument = pathArgument(name);
    if (argument === undefined) return undefined;
    const given = input[argument];
    const path = typeof given === "string" && given !== "" ? given : argument === "path" ? "." : undefined;
    if (path === undefined) return undefined;
    return await canonicalPath(ctx.ports.fs, resolveToolPath(ctx, path)).catch(() => undefined);
  }

  #reads: Promise<ReadScope> | undefined;

  /**
   * Where this session reads without asking, and what it never reads (home resolved once): the
   * workspace, `--add-dir` folders and the folders its tools send the model to (the listed skills').
   */
  #readScope(): Promise<ReadScope> {
    const o = this.#o;
    return this.#reads ??= (async () => {
      const home = o.ports.env.home();
      const real = home === undefined ? undefined : await canonicalPath(o.ports.fs, home).catch(() => home);
      const toolDirs = await this.#toolDirs();
      // The session's saved results (result_persistence.ts): its own folder of the storage root, which the
      // model is told to Read; canonical like the other roots (its project folder exists by now).
      const results = o.resultsDir === undefined ? [] : [
        await canonicalPath(o.ports.fs, o.resultsDir).catch(() => o.resultsDir!),
      ];
      return readScope({
        workspaceRoot: o.workspaceRoot,
        storageRoot: o.storageRoot,
        additionalDirs: [...o.additionalDirs ?? [], ...toolDirs, ...results],
        ...(real === undefined ? {} : { home: real }),
      });
    })();
  }

  /** The tools' readable folders, canonical; one a symlink renames (`skills/x` → `/elsewhere/y`) is left out. */
  async #toolDirs(): Promise<string[]> {
    const dirs = (await this.tools()).flatMap((t) => t.readableDirs ?? []);
    const real = await Promise.all(
      dirs.map((d) => canonicalPath(this.#o.ports.fs, d).catch(() => undefined)),
    );
    return real.filter((r, i): r is string => r !== undefined && basename(r) === basename(dirs[i]!));
  }

  /**
   * The permission gate (trust, mode, the run's rules, the agent's limits; a person when askable), then
   * the `beforeToolCall` hook point, which can only refuse or rewrite the input. An approver may change
   * the input (the Agent SDK's `updatedInput`): the changed call is what runs, checked first.
   */
  async #gate(request: ToolCallRequest): Promise<GateOutcome> {
    const o = this.#o;
    const pre = o.beforePermission === undefined ? {} : await this.#hooks.beforePermission(request);
    if (pre.decision === "deny") {
      return {
        allow: false,
        askable: false,
        message: pre.reason ?? `A hook refused ${request.call.name}.`,
        byHook: true,
      };
    }
    let hooked: Record<string, unknown> | undefined;
    if (pre.input !== undefined) {
      // The hook's input is what runs: valid for the tool, and gated as itself below; it keeps the keys
      // Blade assigned the call.
      const given = withAssigned(request.call.name, pre.input, request.call.input);
      const parsed = request.tool.schema.safeParse(given);
      if (!parsed.success) {
        return {
          allow: false,
          askable: false,
          message: `A hook rewrote the input of ${request.call.name} into an invalid one.`,
        };
      }
      hooked = parsed.data as Record<string, unknown>;
      request = { ...request, call: { ...request.call, input: given }, input: hooked };
    }
    const { tool, call, ctx } = request;
    const path = await this.#rulePath(tool.name, call.input, ctx);
    let decision = await this.#permission(request, path);
    // A hook's `allow` approves what a person could have approved, nothing more; its `ask` asks even
    // where the gate allows (BeforePermissionResult).
    if (!decision.allow && decision.askable && pre.decision === "allow") decision = { allow: true };
    else if (decision.allow && pre.decision === "ask") {
      const why = pre.reason ?? "a hook asks for approval";
      decision = {
        allow: false,
        askable: true,
        message: `Permission to use ${tool.name} requires approval (${why}), and no one can approve it here.`,
      };
    }
    let approved: Record<string, unknown> | undefined = hooked;
    if (!decision.allow && decision.askable && o.ask !== undefined) {
      // The approver sees the call as the model wrote it (not the child id Blade assigned).
      const shown = { ...call, input: modelInput(call.name, call.input) };
      const asked = await o.ask(shown, { path, reason: decision.message }, ctx.signal);
      if (!asked.allowed) return { allow: false, askable: false, message: asked.message };
      // Whoever approved this very command approved what it does, the network included
      // (docs/reference/permissions.md "The OS sandbox"); ctx is this call's own.
      ctx.commandNetwork = true;
      if (asked.updatedInput !== undefined) {
        const changed = await this.#changed(request, withAssigned(call.name, asked.updatedInput, call.input));
        if (!changed.allow) return changed;
        approved = changed.input;
        request = { ...request, input: approved };
      }
    } else if (!decision.allow) return decision;
    // A read-only command allowed without a rule keeps that mark (it runs read-only) past the hook.
    const readOnly = decision.allow && decision.readOnlyCommand === true;
    const mine: GateOutcome = approved !== undefined
      ? { allow: true, input: approved, checked: true }
      : readOnly
      ? decision
      : { allow: true };
    if (o.beforeToolCall === undefined) return mine;
    const answer = await this.#hooks.before(request);
    if (!answer.allow) return { allow: false, askable: answer.askable ?? false, message: answer.message };
    if (answer.input === undefined) return mine;
    return readOnly ? { ...answer, readOnlyCommand: true } : answer;
  }

  /**
   * An input the approver changed: valid for the tool, and not refused by anything no one may approve
   * (a deny rule, trust, plan mode, an agent's limits): the approver approved this call, not more.
   */
  async #changed(
    request: ToolCallRequest,
    input: Record<string, unknown>,
  ): Promise<
    { allow: true; input: Record<string, unknown> } | { allow: false; askable: false; message: string }
  > {
    const { tool, call, ctx } = request;
    const parsed = tool.schema.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join(
        "; ",
      );
      return {
        allow: false,
        askable: false,
        message: `Invalid tool input for ${tool.name} (as the approver changed it): ${issues}`,
      };
    }
    const path = await this.#rulePath(tool.name, input, ctx);
    const decision = await this.#permission({ tool, call: { ...call, input } }, path);
    if (!decision.allow && !decision.askable) return { ...decision, askable: false };
    return { allow: true, input: parsed.data as Record<string, unknown> };
  }

  /** The permission gate's decision on a call (trust, mode, the run's rules, the agent's limits). */
  async #permission(
    request: { tool: AnyTool; call: ToolCallBlock },
    path: string | undefined,
  ): Promise<GateDecision> {
    const o = this.#o;
    const { tool, call } = request;
    const home = o.ports.env.home();
    // Bash rules are matched on a bash parse (shell/command_line.ts), loaded on the first command.
    if (typeof call.input.command === "string") await loadBashParser();
    return decide({
      reads: await this.#readScope(),
      name: tool.name,
      kind: tool.kind,
      input: call.input,
      ...(path === undefined ? {} : { path }),
      trusted: o.trusted,
      mode: o.mode,
      rules: o.rules,
      ...(o.limits === undefined ? {} : { limits: o.limits }),
      scope: { workspaceRoot: o.workspaceRoot, ...(home === undefined ? {} : { home }) },
      ...(o.additionalDirs === undefined ? {} : { additionalDirs: o.additionalDirs }),
      ...(tool.readOnly === true ? { readOnly: true } : {}),
      storageRoot: o.storageRoot,
    });
  }
}
