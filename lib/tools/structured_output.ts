// Owns the StructuredOutput mechanism (docs/reference/verification.md): a tool through which the
// model returns one object that must match a JSON Schema, and the corrective retries around it. An
// invalid object gets the validation errors back and may be retried; a run that ends without calling
// the tool is asked again. At most `maxRetries` (default 2) corrections, then the output is rejected.
// Used by the verification agents (their verdict) and by `--json-schema`. Does not run the loop:
// the loop asks `followUp()` when the model stops.

import type { z } from "zod";
import { importNpm } from "../npm_module.ts";
import { ANY_OBJECT_INPUT } from "./input_check.ts";
import { fail, ok, type Tool } from "./tool.ts";

export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

export interface StructuredOutputOptions {
  /** The JSON Schema the object must match. */
  schema: Record<string, unknown>;
  /** Corrections allowed after the first attempt (default 2). */
  maxRetries?: number;
  /** What the object is for, shown to the model. */
  purpose?: string;
  /** The run ends once the object is accepted (an `agent` hook's verifier, as Claude Code's does). */
  endAtAnswer?: boolean;
}

export type StructuredOutputState =
  | { status: "pending" }
  | { status: "accepted"; value: unknown }
  | { status: "rejected"; reason: string };

/**
 * A validator for a JSON Schema; rejects with a plain Error naming the problem when the schema is
 * unusable. zod is loaded here, when an object is first checked (or a `--json-schema` read), not when
 * the tool is offered.
 */
export async function jsonSchemaValidator(schema: Record<string, unknown>): Promise<z.ZodType> {
  const { z } = await importNpm("zod", () => import("zod"), { exports: ["z"] });
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (e) {
    throw new Error(`not a usable JSON Schema: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues.slice(0, 20).map((i) =>
    `- ${i.path.length === 0 ? "(object)" : i.path.join(".")}: ${i.message}`
  )
    .join("\n");
}

/** One run's structured output: the tool to give the model, and what it produced. */
export class StructuredOutput {
  readonly #schema: Record<string, unknown>;
  #validator: Promise<z.ZodType> | undefined;
  readonly #maxRetries: number;
  readonly #purpose: string;
  #attempts = 0;
  #corrections = 0;
  #state: StructuredOutputState = { status: "pending" };

  constructor(options: StructuredOutputOptions) {
    this.#schema = options.schema;
    this.#maxRetries = options.maxRetries ?? 2;
    this.#purpose = options.purpose ?? "your final answer";
  }

  get state(): StructuredOutputState {
    return this.#state;
  }

  /** Invalid objects and missing calls so far. */
  get corrections(): number {
    return this.#corrections;
  }

  tool(): Tool<Record<string, unknown>> {
    return {
      name: STRUCTURED_OUTPUT_TOOL,
      description: `Returns ${this.#purpose} as one JSON object matching the input schema. Call it exactly ` +
        `once, at the end, after your final message. An object that does not match the schema is ` +
        `returned with the errors; correct it and call again (at most ${this.#maxRetries} corrections).`,
      kind: "read",
      schema: ANY_OBJECT_INPUT,
      inputSchema: this.#schema,
      run: (input) => this.#submit(input),
    };
  }

  async #submit(input: Record<string, unknown>) {
    if (this.#state.status === "accepted") {
      return ok("Structured output was already accepted; nothing changed.");
    }
    if (this.#state.status === "rejected") {
      return fail(`Structured output was rejected: ${this.#state.reason}`);
    }
    const validator = await (this.#validator ??= jsonSchemaValidator(this.#schema));
    this.#attempts++;
    const parsed = validator.safeParse(input);
    if (parsed.success) {
      this.#state = { status: "accepted", value: input };
      return ok("Structured output accepted.", { structuredOutput: input });
    }
    const issues = describeIssues(parsed.error);
    if (this.#corrections >= this.#maxRetries) {
      this.#state = {
        status: "rejected",
        reason: `Failed to provide valid structured output after ${this.#attempts} attempts — last ` +
          `${STRUCTURED_OUTPUT_TOOL} error: the object does not match the schema:\n${issues}`,
      };
      return fail(
        `Structured output rejected: it still does not match the schema and no corrections are left.\n${issues}`,
      );
    }
    this.#corrections++;
    return fail(
      `The object does not match the schema (correction ${this.#corrections} of ${this.#maxRetries}):\n${issues}\n` +
        `Call ${STRUCTURED_OUTPUT_TOOL} again with a corrected object.`,
    );
  }

  /** The reason the output was rejected (no attempt left), else undefined: the run must end then. */
  exhausted(): string | undefined {
    return this.#state.status === "rejected" ? this.#state.reason : undefined;
  }

  /**
   * Called when the model ends its turn: the corrective message to send when no object was accepted
   * yet and corrections remain, else undefined (the run ends; `state` says how).
   */
  followUp(): string | undefined {
    if (this.#state.status !== "pending") return undefined;
    if (this.#corrections >= this.#maxRetries) {
      this.#state = {
        status: "rejected",
        reason:
          `Failed to provide valid structured output: ${STRUCTURED_OUTPUT_TOOL} was not called with a ` +
          `valid object after ${this.#corrections} corrections`,
      };
      return undefined;
    }
    this.#corrections++;
    return `You ended without calling ${STRUCTURED_OUTPUT_TOOL}. Call it now with ${this.#purpose} as a JSON ` +
      `object matching its schema (correction ${this.#corrections} of ${this.#maxRetries}).`;
  }
}
