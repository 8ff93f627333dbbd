// Owns reading what a print-mode run is asked to do: the prompt (argument or stdin), the lines of
// `--input-format stream-json` (the Agent SDK's user messages and control requests on stdin), the
// `--system-prompt-file` and `--append-system-prompt-file` files, `--tools` and `--max-budget-usd`.
// Errors are usage errors that name the flag and the line.

import type { Ports } from "../sys/mod.ts";
import { BladeError, usageError } from "../errors.ts";
import { BLADE_TOOL_NAMES } from "../protocol/tool_rule.ts";

// deno-lint-ignore no-explicit-any
type Values = Record<string, any>;

/** One line of `--input-format stream-json`: a user message or a line of the SDK's control protocol. */
export type StreamJsonInput =
  | { type: "user"; text: string; uuid?: string }
  | { type: "control_request"; requestId: string; request: Record<string, unknown> }
  | { type: "control_cancel_request"; requestId: string }
  /** An answer to a request of ours (can_use_tool). */
  | { type: "control_response"; requestId: string; response: Record<string, unknown> }
  | { type: "keep_alive" };

const USER_HINT = 'Send one message per line: {"type":"user","message":{"role":"user","content":"…"}}';

/**
 * Line `n` of stream-json input (undefined for a blank line). A line that is not JSON, of an unknown
 * type, or a user message without text is a usage error naming the line.
 */
export function streamJsonInput(raw: string, n: number): StreamJsonInput | undefined {
  const line = raw.trim();
  if (line === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw usageError(`--input-format stream-json: line ${n} of standard input is not JSON.`, USER_HINT);
  }
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const id = v.request_id;
  switch (v.type) {
    case "user":
      return userLine(v, n);
    case "control_request":
    case "control_cancel_request":
      if (typeof id !== "string" || id === "") {
        throw usageError(`--input-format stream-json: line ${n} is a ${v.type} without a request_id.`);
      }
      if (v.type === "control_cancel_request") return { type: v.type, requestId: id };
      return {
        type: v.type,
        requestId: id,
        request: isObject(v.request) ? v.request : {},
      };
    case "control_response": {
      const response = isObject(v.response) ? v.response : {};
      return { type: v.type, requestId: String(response.request_id ?? ""), response };
    }
    case "keep_alive":
      return { type: v.type };
    default:
      throw usageError(
        `--input-format stream-json: line ${n} is not a user message or a control request (type "${
          String(v.type).slice(0, 40)
        }").`,
        USER_HINT,
      );
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function userLine(v: Record<string, unknown>, n: number): StreamJsonInput {
  const message = v.message as { content?: unknown } | null | undefined;
  if (typeof message !== "object" || message === null) {
    throw usageError(`--input-format stream-json: line ${n} is a user line without a message.`, USER_HINT);
  }
  const content = message.content;
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.filter((b) => b?.type === "text" && typeof b.text === "string").map((b) => b.text).join("\n")
    : "";
  if (text.trim() === "") {
    throw usageError(`--input-format stream-json: line ${n} has no text content.`);
  }
  return { type: "user", text, ...(typeof v.uuid === "string" ? { uuid: v.uuid } : {}) };
}

async function readFlagFile(ports: Ports, flag: string, path: string, cwd: string): Promise<string> {
  const full = path.startsWith("/") ? path : `${cwd}/${path}`;
  try {
    return await ports.fs.readText(full);
  } catch {
    throw new BladeError("file_not_found", `--${flag}: cannot read ${full}.`, {
      hint: `Check the path given to --${flag} (relative paths start at the working folder).`,
    });
  }
}

export interface PromptFlags {
  systemPrompt?: string;
  appendSystemPrompt?: string;
}

/** --system-prompt / --system-prompt-file and --append-system-prompt / --append-system-prompt-file. */
export async function promptFlags(values: Values, ports: Ports): Promise<PromptFlags> {
  const cwd = ports.env.cwd();
  if (values["system-prompt"] !== undefined && values["system-prompt-file"] !== undefined) {
    throw usageError("--system-prompt and --system-prompt-file cannot be used together.");
  }
  const system = values["system-prompt-file"] === undefined
    ? values["system-prompt"]
    : await readFlagFile(ports, "system-prompt-file", values["system-prompt-file"], cwd);
  const appended = [
    values["append-system-prompt"],
    values["append-system-prompt-file"] === undefined
      ? undefined
      : await readFlagFile(ports, "append-system-prompt-file", values["append-system-prompt-file"], cwd),
  ].filter((x): x is string => typeof x === "string");
  return {
    ...(system === undefined ? {} : { systemPrompt: system }),
    ...(appended.length === 0 ? {} : { appendSystemPrompt: appended.join("\n\n") }),
  };
}

/** `--tools "Read,Edit"` (or space-separated): only those built-in tools; `default` = all; `""` = none. */
export function onlyToolsOf(values: Values): string[] | undefined {
  const raw = values.tools as string[] | undefined;
  // `--restricted`: no tool that runs commands unless --tools names it (Claude Code's Bash and WebFetch).
  if (raw === undefined) return values.restricted === true ? RESTRICTED_TOOLS : undefined;
  const names = raw.flatMap((v) => v.split(/[\s,]+/)).filter((n) => n !== "");
  return names.includes("default") ? (values.restricted === true ? RESTRICTED_TOOLS : undefined) : names;
}

/** The built-in tools `--restricted` keeps (all but Bash). */
const RESTRICTED_TOOLS = BLADE_TOOL_NAMES.filter((t) => t !== "Bash");

export function budgetOf(values: Values): number | undefined {
  const raw = values["max-budget-usd"];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw usageError(
      `--max-budget-usd must be a positive number of dollars, got "${raw}".`,
      "Example: --max-budget-usd 0.50",
    );
  }
  return n;
}

/**
 * `--json-schema <schema>`: inline JSON (starts with `{`) or a file holding it. A schema that is not
 * JSON, not an object, or not a usable JSON Schema is a usage error naming the problem.
 */
export async function jsonSchemaOf(
  values: Values,
  ports: Ports,
): Promise<Record<string, unknown> | undefined> {
  const raw = values["json-schema"] as string | undefined;
  if (raw === undefined) return undefined;
  const hint = 'Give --json-schema a JSON Schema object, inline (\'{"type":"object",…}\') or as a file path.';
  let text = raw;
  let where = "the inline schema";
  if (!raw.trim().startsWith("{")) {
    const full = raw.startsWith("/") ? raw : `${ports.env.cwd()}/${raw}`;
    where = full;
    try {
      text = await ports.fs.readText(full);
    } catch {
      throw usageError(
        `--json-schema: ${
          JSON.stringify(raw).slice(0, 120)
        } is not inline JSON and no file ${full} can be read.`,
        hint,
      );
    }
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    throw usageError(
      `--json-schema: ${where} is not valid JSON (${e instanceof Error ? e.message : String(e)}).`,
      hint,
    );
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw usageError(`--json-schema: ${where} is not a JSON object.`, hint);
  }
  const { jsonSchemaValidator } = await import("../tools/structured_output.ts");
  try {
    await jsonSchemaValidator(schema as Record<string, unknown>);
  } catch (e) {
    throw usageError(`--json-schema: ${where} is ${e instanceof Error ? e.message : String(e)}.`, hint);
  }
  return schema as Record<string, unknown>;
}
