// Owns StructuredOutput's place in the agent loop (`--json-schema`, a verification child's verdict):
// its corrective retries are an `onTurnEnd` hook (the model ended without a valid object: send the
// correction back) and its exhausted attempts a `shouldStop` hook (the run fails with
// `structured_output_retries_exhausted`); `--json-schema`'s run ends at the accepted object, as Claude
// Code's does (one request). The tool and its state are tools/structured_output.ts's.

import { type LoopHooks, STOP_COMPLETED } from "./hooks.ts";

/** What the hooks read of a StructuredOutput (the tool's own methods). */
export interface StructuredState {
  /** The correction to send when the model ends without an accepted object, else undefined. */
  followUp(): string | undefined;
  /** Why the attempts ran out, else undefined. */
  exhausted(): string | undefined;
  /** Given: the run ends (completed) once this says the object was accepted (`--json-schema`). */
  accepted?: () => boolean;
}

/** The corrective retries: a correction sent back instead of ending the turn. */
export function structuredRetries(s: Pick<StructuredState, "followUp">): LoopHooks {
  return {
    onTurnEnd: () => {
      const correction = s.followUp();
      return correction === undefined ? {} : { continueWith: correction };
    },
  };
}

/** The retries, the run's failed end once no attempt is left, and (with `accepted`) its end at the object. */
export function structuredOutputHooks(s: StructuredState): LoopHooks {
  return {
    ...structuredRetries(s),
    shouldStop: () => {
      const message = s.exhausted();
      if (message !== undefined) return { type: "structured_output_retries_exhausted", message };
      return s.accepted?.() === true ? STOP_COMPLETED : undefined;
    },
  };
}
