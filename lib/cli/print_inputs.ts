// Owns reading what a print-mode run is asked to do: the prompt (argument or stdin), the user turns of
// `--input-format stream-json` (the Agent SDK's JSON lines on stdin), the `--system-prompt-file` and
// `--append-system-prompt-file` files, `--tools` and `--max-budget-usd`. Errors are usage errors that
// name the flag and the line.

import type { Ports } from "../sys/mod.ts";
import { BladeError, usageError } from "../errors.ts";

// deno-lint-ignore no-explicit-any
type Values = Record<string, any>;

/**
 * The user turns of `--input-format stream-json`, one per line as the lines arrive (a wrapper keeps
 * stdin open and waits for each result): `{"type":"user","message":{"role":"user","content":…}}`.
 * A bad line is a usage error naming it; EOF without any message too.
 */
export async function* streamJsonTurns(lines: AsyncIterable<string>): AsyncGenerator<string> {
  let n = 0;
  let turns = 0;
  for await (const raw of lines) {
    const text = streamJsonLine(raw.trim(), ++n);
    if (text === undefined) continue;
    turns++;
    yield text;
  }
  if (turns === 0) throw usageError("--input-format stream-json: no user message on standard input.");
}

/** The text of line `n` of stream-json input (undefined for a blank line). */
function streamJsonLine(line: string, n: number): string | undefined {
  if (line === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw usageError(
      `--input-format stream-json: line ${n} of standard input is not JSON.`,
      'Send one message per line: {"type":"user","message":{"role":"user","content":"…"}}',
    );
  }
  const v = value as { type?: unknown; message?: { role?: unknown; content?: unknown } };
  if (v.type !== "user" || typeof v.message !== "object" || v.message === null) {
    throw usageError(
      `--input-format stream-json: line ${n} is not a user message (type "${String(v.type)}").`,
      'Send user messages: {"type":"user","message":{"role":"user","content":"…"}}',
    );
  }
  const content = v.message.content;
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.filter((b) => b?.type === "text" && typeof b.text === "string").map((b) => b.text).join("\n")
    : "";
  if (text.trim() === "") {
    throw usageError(`--input-format stream-json: line ${n} has no text content.`);
  }
  return text;
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
  if (raw === undefined) return undefined;
  const names = raw.flatMap((v) => v.split(/[\s,]+/)).filter((n) => n !== "");
  return names.includes("default") ? undefined : names;
}

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
    jsonSchemaValidator(schema as Record<string, unknown>);
  } catch (e) {
    throw usageError(`--json-schema: ${where} is ${e instanceof Error ? e.message : String(e)}.`, hint);
  }
  return schema as Record<string, unknown>;
}
