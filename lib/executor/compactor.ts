// Owns carrying out one compaction of a session's conversation (docs/reference/limits.md,
// "Compaction"): the beforeCompact hook point (Claude Code's PreCompact), the summary request (the
// session's own system prompt and tools, so its prefix is the cached one, then the conversation before
// the kept tail and the summary instructions: compaction_text.ts), the new conversation, and its
// boundary made durable by the journal before anyone uses it. When to compact is compaction_policy.ts's
// and the loop's; this module never decides it.

import { addUsage, type Message, textOf, type ToolSpec, type Usage, userText } from "../protocol/messages.ts";
import type { CompactTrigger, RuntimeEventSink } from "../protocol/events.ts";
import type { Provider, ProviderError, RequestMeta } from "../protocol/provider.ts";
import type { Clock } from "../sys/clock.ts";
import type { HookPoints } from "./hooks.ts";
import type { LoopJournal } from "./journal.ts";
import { modelTurn } from "./model_turn.ts";
import { withContext } from "./request_context.ts";
import { estimateTokens, keptTailStart, promptTooLong } from "./compaction_policy.ts";
import { restoreReads, withRestored } from "./compaction_restore.ts";
import { continuationMessage, summaryOf, summaryRequestText, toolsUsed } from "./compaction_text.ts";

/** What one compaction is asked to do. */
export interface CompactionRequest {
  trigger: CompactTrigger;
  /** `/compact <instructions>`: what the summary should focus on. */
  instructions?: string | undefined;
  /** Context tokens now (reported in the boundary). */
  preTokens: number;
  /** The most the kept tail may hold, in tokens (more: nothing is kept verbatim). */
  keepTokens: number;
}

/** The session a compaction works for: what its requests are made of, and where its steps go. */
export interface CompactorDeps {
  provider: Provider;
  model: string;
  system: string;
  tools: ToolSpec[];
  maxTokens: number;
  meta: RequestMeta;
  context?: readonly string[] | undefined;
  journal: LoopJournal;
  hooks: HookPoints;
  emit: RuntimeEventSink;
  clock: Pick<Clock, "now">;
  /** The session's transcript, named in the summary's message as where the full history is. */
  transcriptPath?: string | undefined;
  /** Reads a file again as the session's Read would (undefined: it cannot): re-attached after (compaction_restore.ts). */
  reread?: ((path: string) => Promise<string | undefined>) | undefined;
}

export type CompactionOutcome =
  | { ok: true; messages: Message[]; usage: Usage }
  | {
    ok: false;
    usage: Usage;
    reason: string;
    error?: ProviderError;
    /** A beforeCompact hook stopped it (Claude Code's PreCompact): `reason` is what the user is told. */
    blocked?: boolean;
  };

/** Times the summary request is retried with its oldest third left out when it is itself too long. */
const SHORTER_RETRIES = 2;

const LEFT_OUT =
  "[The earliest part of the conversation was left out here so that the summary request fits.]";

/**
 * Compacts `messages`: asks the model for a summary of all but the kept tail, then makes the new
 * conversation (the summary's message, the tail) durable as one boundary and announces it. Returns
 * the new conversation, or why it could not (the conversation is then unchanged).
 */
export async function compact(
  messages: readonly Message[],
  request: CompactionRequest,
  o: { deps: CompactorDeps; signal: AbortSignal },
): Promise<CompactionOutcome> {
  const { deps, signal } = o;
  const started = deps.clock.now();
  const start = keptTailStart(messages, request.keepTokens);
  let head = messages.slice(0, start);
  const kept = messages.slice(start);
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  if (head.length === 0) {
    return { ok: false, usage, reason: "there is nothing before the latest messages to summarise" };
  }
  const hooked = await deps.hooks.compact({
    sessionId: deps.meta.sessionId,
    trigger: request.trigger,
    ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
  });
  if (hooked.block !== undefined) return { ok: false, usage, reason: hooked.block, blocked: true };
  const instructions = [request.instructions, hooked.instructions].filter((t) =>
    t !== undefined && t.trim() !== ""
  ).join(
    "\n\n",
  );
  for (let attempt = 0;; attempt++) {
    const answer = await modelTurn({
      provider: deps.provider,
      // The summary is not the session's answer: only retries are reported.
      emit: (e) => e.type === "retry" && deps.emit(e),
      sessionId: deps.meta.sessionId,
    }, {
      model: deps.model,
      system: deps.system,
      messages: [
        ...withContext(head as Message[], deps.context),
        userText(summaryRequestText(instructions), true),
      ],
      tools: deps.tools,
      maxTokens: deps.maxTokens,
      meta: deps.meta,
    }, signal);
    usage = addUsage(usage, answer.usage);
    if (answer.kind === "error") {
      if (promptTooLong(answer.error) && attempt < SHORTER_RETRIES && shorter(head) !== undefined) {
        head = shorter(head)!;
        continue;
      }
      return {
        ok: false,
        usage,
        reason: `the summary request failed: ${answer.error.message}`,
        error: answer.error,
      };
    }
    const summary = summaryOf(textOf(answer.message));
    if (summary === undefined) return { ok: false, usage, reason: "the model's summary was empty" };
    const next = await continued(summary, { before: messages.slice(0, start), summarised: head, kept, deps });
    await deps.journal.compacted({ trigger: request.trigger, preTokens: request.preTokens, messages: next });
    deps.emit({
      type: "compacted",
      sessionId: deps.meta.sessionId,
      trigger: request.trigger,
      preTokens: request.preTokens,
      postTokens: estimateTokens(next),
      durationMs: deps.clock.now() - started,
      kept: kept.length,
      model: deps.model,
      usage,
      said: hooked.said,
    });
    return { ok: true, messages: next, usage };
  }
}

/**
 * The conversation after the boundary: the summary's message, the kept messages, then the files read
 * last before them (compaction_restore.ts).
 */
async function continued(
  summary: string,
  o: { before: readonly Message[]; summarised: readonly Message[]; kept: Message[]; deps: CompactorDeps },
): Promise<Message[]> {
  const { deps, kept } = o;
  const restored = deps.reread === undefined
    ? []
    : await restoreReads(o.before, { kept, reread: deps.reread });
  return withRestored([
    continuationMessage(summary, {
      transcriptPath: deps.transcriptPath,
      toolsUsed: toolsUsed(o.summarised),
      kept: kept.length,
    }),
    ...kept,
  ], restored);
}

/** `head` without its oldest third (cut before an assistant message, a note in its place), or undefined. */
function shorter(head: readonly Message[]): Message[] | undefined {
  for (let i = Math.ceil(head.length / 3); i < head.length; i++) {
    if (head[i]!.role === "assistant") return [userText(LEFT_OUT, true), ...head.slice(i)];
  }
  return undefined;
}
