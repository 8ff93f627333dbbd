// Owns expanding a custom slash command into the user message the model gets, as Claude Code 2.1.332
// does (tests/fixtures/claude/context_command_*): the `<command-message>` block, then the body with
// `$ARGUMENTS`, `$ARGUMENTS[N]` and `$N` (0-based) replaced — or the arguments appended when it has no
// placeholder — its `!`command`` replaced by the command's output, and each `@file` it names added as a
// Read of that file. Running a command and reading a file are the caller's (through the session's
// permission gate); this module only decides the text.

import type { CommandFile } from "./command_file.ts";
import { importsOf } from "../memory/memory_imports.ts";

export interface ExpandEffects {
  /** Runs `command` as the session's Bash would (the same gate); its output, or why it did not run. */
  run(command: string): Promise<{ ok: true; output: string } | { ok: false; message: string }>;
  /** The file `@path` names (relative to the working folder), when it exists and may be read. */
  read(path: string): Promise<{ path: string; text: string } | undefined>;
}

export type Expansion =
  | { ok: true; blocks: string[] }
  | { ok: false; message: string };

/** `/name rest` → name and arguments; undefined when the prompt is not a slash command. */
export function slashPrompt(prompt: string): { name: string; args: string } | undefined {
  const m = /^\/([^\s/][^\s]*)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (m === null) return undefined;
  return { name: m[1]!, args: (m[2] ?? "").trim() };
}

/** Words of the arguments: split on white space, `"…"` and `'…'` kept together. */
export function argumentWords(args: string): string[] {
  const words: string[] = [];
  for (const m of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3] ?? "");
  return words;
}

const PLACEHOLDER = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)/g;

/** The body with its placeholders replaced, or the arguments appended when it has none. */
export function substituteArguments(body: string, args: string): string {
  const words = argumentWords(args);
  if (!new RegExp(PLACEHOLDER.source).test(body)) {
    return args === "" ? body : `${body}\n\nARGUMENTS: ${args}`;
  }
  return body.replace(PLACEHOLDER, (_, indexed: string | undefined, positional: string | undefined) => {
    const index = indexed ?? positional;
    return index === undefined ? args : words[Number(index)] ?? "";
  });
}

/** `!`command`` spans of a body, in order. */
export function shellSpans(body: string): string[] {
  return [...body.matchAll(/!`([^`\n]+)`/g)].map((m) => m[1]!);
}

/** The user message's text blocks for `/name args`, or why the command could not be expanded. */
export async function expandCommand(cmd: CommandFile, args: string, fx: ExpandEffects): Promise<Expansion> {
  let body = substituteArguments(cmd.body, args);
  for (const command of shellSpans(body)) {
    const ran = await fx.run(command);
    if (!ran.ok) {
      return { ok: false, message: `/${cmd.name} runs \`${command}\`, which did not run: ${ran.message}` };
    }
    body = body.replace(`!\`${command}\``, () => ran.output.replace(/\s+$/, ""));
  }
  const files: string[] = [];
  for (const ref of importsOf(body)) {
    const file = await fx.read(ref);
    if (file === undefined) continue;
    files.push(
      `<system-reminder>\nCalled the Read tool with the following input: ${
        JSON.stringify({ file_path: file.path })
      }\n</system-reminder>`,
      `<system-reminder>\nResult of calling the Read tool:\n${numbered(file.text)}\n</system-reminder>`,
    );
  }
  const header =
    `<command-message>${cmd.name}</command-message>\n<command-name>/${cmd.name}</command-name>\n` +
    (args === "" ? "" : `<command-args>${args}</command-args>\n`);
  return { ok: true, blocks: [...files, header, body] };
}

/** A file's lines numbered `N<tab>line`, as the Read in Claude Code's expansion shows them. */
function numbered(text: string): string {
  return text.replace(/\r\n?/g, "\n").split("\n").map((line, i) => `${i + 1}\t${line}`).join("\n");
}
