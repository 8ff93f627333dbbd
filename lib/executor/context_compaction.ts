// Owns a session loop's side of compaction (docs/reference/limits.md, "Compaction"): how full its
// context is (the last answer's usage and what was added since), whether to compact before the next
// request (compaction_policy.ts), and running a compaction (compactor.ts, loaded on first use) over
// the loop's conversation, which it then continues from. The loop (loop.ts) decides when to ask.

import type { Message, ToolSpec, Usage } from "../protocol/messages.ts";
import type { LoopOptions } from "./loop_options.ts";
import type { LoopJournal } from "./journal.ts";
import type { HookPoints } from "./hooks.ts";
import type { CompactionOutcome, CompactionRequest } from "./compactor.ts";
import { withContext } from "./request_context.ts";
import { modelProfile } from "../config/models.ts";
import {
  autoCompactThreshold,
  compactionDue,
  contextTokens,
  contextWindow,
  estimateTokens,
  keptTailStart,
  promptTooLong,
} from "./compaction_policy.ts";
import type { ProviderError } from "../protocol/provider.ts";

export interface ContextCompactionDeps {
  /** The loop's options now (its model may change between turns). */
  options: () => LoopOptions;
  /** The loop's conversation, replaced in place by a compaction. */
  messages: Message[];
  journal: LoopJournal;
  hooks: HookPoints;
  /** The tools as the model sees them (the summary request sends the same, for the cached prefix). */
  tools: () => Promise<ToolSpec[]>;
  /** Reads a file again with the session's Read, for the files re-attached after (compaction_restore.ts). */
  reread?: ((path: string, signal: AbortSignal) => Promise<string | undefined>) | undefined;
}

/** What a compaction within a turn needs of the turn. */
export interface TurnCompaction {
  /** Resolves once the turn's opening batch is durable (a boundary is written after it). */
  durable: () => Promise<void>;
  signal: AbortSignal;
  /** The conversation was replaced; it held `before` messages. */
  onReplaced: (before: number) => void;
}

export class ContextCompaction {
  #d: ContextCompactionDeps;
  /** A "prompt is too long" answer was met by a compaction since the last answer (once per request). */
  #triedForTooLong = false;
  /** The last answer's usage (how full the context was) and where the messages after it start. */
  #lastUsage: Usage | undefined;
  #usageAt = 0;
  #specsChars = 0;

  constructor(deps: ContextCompactionDeps) {
    this.#d = deps;
  }

  /** An answer came back: its usage says how full the context is; it will sit at `messages.length`. */
  answered(usage: Usage): void {
    this.#triedForTooLong = false;
    this.#lastUsage = usage;
    this.#usageAt = this.#d.messages.length + 1;
  }

  /** Before a request of a turn: compacts when the context nears the window. */
  async beforeRequest(turn: TurnCompaction): Promise<void> {
    if (!(await this.due())) return;
    await turn.durable();
    await this.run({ trigger: "auto", preTokens: this.tokens() }, turn);
  }

  /**
   * A failed request: when it says the prompt is too long (and compaction is on), compacts once per
   * request; true when the request may be asked again.
   */
  async afterTooLong(error: ProviderError, turn: TurnCompaction): Promise<boolean> {
    if (!promptTooLong(error) || this.#d.options().compaction?.enabled !== true || this.#triedForTooLong) {
      return false;
    }
    this.#triedForTooLong = true;
    await turn.durable();
    return (await this.run({ trigger: "auto", preTokens: this.tokens() }, turn)).ok;
  }

  /** The auto-compaction threshold of the session's model. */
  threshold(): number {
    const o = this.#d.options();
    // 0 asks for the model's own default (config/models.ts), as the request does.
    const profile = modelProfile(o.model);
    const maxOutputTokens = Math.min(
      o.maxTokens > 0 ? o.maxTokens : profile.defaultMaxTokens,
      profile.maxTokensCap,
    );
    return autoCompactThreshold(contextWindow(o.model, o.compaction), {
      maxOutputTokens,
      percent: o.compaction?.percent,
    });
  }

  /** How full the next request's context is, in tokens. */
  tokens(): number {
    const o = this.#d.options();
    const messages = this.#d.messages;
    return contextTokens({
      lastUsage: this.#lastUsage,
      since: messages.slice(this.#usageAt),
      whole: () =>
        Math.ceil((o.system.length + this.#specsChars) / 4) +
        estimateTokens(withContext(messages, o.context)),
    });
  }

  /** Whether to compact before the next request (the context nears the window). */
  async due(): Promise<boolean> {
    const c = this.#d.options().compaction;
    if (c === undefined || !c.auto || !c.enabled) return false;
    if (this.#specsChars === 0) this.#specsChars = JSON.stringify(await this.#d.tools()).length;
    const threshold = this.threshold();
    const summarisable = keptTailStart(this.#d.messages, Math.floor(threshold / 4)) > 0;
    return compactionDue({ settings: c, tokens: this.tokens(), threshold, summarisable });
  }

  /**
   * Runs one compaction; when it succeeds the conversation is the compacted one (its boundary durable
   * first). `onReplaced` learns how many messages were there before.
   */
  async run(
    request: Omit<CompactionRequest, "keepTokens">,
    o: { signal: AbortSignal; onReplaced?: (before: number) => void },
  ): Promise<CompactionOutcome> {
    const options = this.#d.options();
    const messages = this.#d.messages;
    const { compact } = await import("./compactor.ts");
    const done = await compact(messages, { ...request, keepTokens: Math.floor(this.threshold() / 4) }, {
      deps: {
        provider: options.provider,
        model: options.model,
        system: options.system,
        tools: await this.#d.tools(),
        maxTokens: options.maxTokens,
        meta: options.meta,
        context: options.context,
        journal: this.#d.journal,
        hooks: this.#d.hooks,
        emit: options.emit,
        clock: options.ports.clock,
        transcriptPath: options.transcript.path,
        reread: this.#d.reread === undefined ? undefined : (path) => this.#d.reread!(path, o.signal),
      },
      signal: o.signal,
    });
    if (!done.ok) return done;
    const before = messages.length;
    messages.splice(0, before, ...done.messages);
    o.onReplaced?.(before);
    this.#lastUsage = undefined;
    this.#usageAt = 0;
    return done;
  }
}
