// Owns the grammar of slash commands in the interactive session: the command table (name, arguments,
// one-line description), splitting a typed line into a command and its words, and Tab completion of
// command names, sub-commands and agent names. Pure; running a command is slash_commands.ts.

import type { AutocompleteItem, AutocompleteProvider, AutocompleteSuggestions } from "@mariozechner/pi-tui";

export interface SlashSpec {
  name: string;
  args: string;
  description: string;
  /** Words that may follow the name (sub-commands), completed with Tab. */
  subcommands?: readonly string[];
}

export const SLASH_COMMANDS: readonly SlashSpec[] = [
  { name: "help", args: "", description: "the commands and keys of the interactive session" },
  {
    name: "agents",
    args: "[list|show <name>|validate|create|reload]",
    description: "the subagents this session can delegate to",
    subcommands: ["list", "show", "validate", "create", "reload"],
  },
  {
    name: "tasks",
    args: "[list|output <id>|transcript <id>|stop <id>|resume <id> <prompt>|clean]",
    description: "this session's subagent runs and background commands",
    subcommands: ["list", "output", "transcript", "stop", "resume", "clean"],
  },
  { name: "permissions", args: "[mode]", description: "show or change the permission mode" },
  { name: "model", args: "[name]", description: "show or change the model" },
  { name: "status", args: "", description: "session id, model, mode, trust, running children" },
  { name: "trust", args: "", description: "trust this folder; load its settings, agents, MCP" },
  { name: "memory", args: "", description: "memory files (CLAUDE.md), skills and custom commands" },
  { name: "compact", args: "[instructions]", description: "summarise the conversation to free its context" },
  { name: "clear", args: "", description: "start a new session (the old one stays on disk)" },
  { name: "resume", args: "[id]", description: "continue an earlier session of this folder" },
  { name: "exit", args: "", description: "leave (the session is saved; Ctrl-D works too)" },
];

export interface SlashLine {
  name: string;
  /** The words after the name. */
  words: string[];
  /** Everything after the name, as typed (for free text such as a resume prompt). */
  rest: string;
}

/** `/tasks stop agent-1` → {name: "tasks", words: ["stop", "agent-1"]}; undefined for a plain prompt. */
export function parseSlash(line: string): SlashLine | undefined {
  const m = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (m === null) return undefined;
  const rest = (m[2] ?? "").trim();
  return { name: m[1]!.toLowerCase(), words: rest === "" ? [] : rest.split(/\s+/), rest };
}

/** Words after `/name sub ` that name an agent. */
const AGENT_ARGUMENT: Readonly<Record<string, readonly string[]>> = { agents: ["show"] };

/** Completions for the text before the cursor on a one-line input; undefined when none apply. */
export function completeSlash(
  before: string,
  o: {
    agentNames: readonly string[];
    modes: readonly string[];
    custom?: readonly { name: string; description?: string; argumentHint?: string }[];
  },
): AutocompleteSuggestions | undefined {
  const { agentNames, modes, custom = [] } = o;
  if (!before.startsWith("/")) return undefined;
  const words = before.slice(1).split(/\s+/);
  const prefix = words.at(-1) ?? "";
  const item = (value: string, description?: string): AutocompleteItem =>
    description === undefined ? { value, label: value } : { value, label: value, description };
  let items: AutocompleteItem[] = [];
  if (words.length === 1) {
    // The command word's prefix keeps its slash: Enter on such a suggestion completes and runs it.
    // A word already typed in full offers nothing, so Enter sends the line.
    if (SLASH_COMMANDS.some((c) => c.name === prefix) || custom.some((c) => c.name === prefix)) {
      return undefined;
    }
    items = SLASH_COMMANDS.filter((c) => c.name.startsWith(prefix)).map((c) =>
      item(`/${c.name}`, `${c.args === "" ? "" : `${c.args} — `}${c.description}`)
    );
    // Custom commands (.claude/commands) after Blade's own.
    items.push(
      ...custom.filter((c) => c.name.startsWith(prefix)).map((c) => item(`/${c.name}`, customHelp(c))),
    );
    return items.length === 0 ? undefined : { items, prefix: `/${prefix}` };
  } else {
    const spec = SLASH_COMMANDS.find((c) => c.name === words[0]);
    if (spec === undefined) return undefined;
    const position = words.length - 1;
    const choices = position === 1 && spec.subcommands !== undefined
      ? spec.subcommands
      : position === 1 && spec.name === "permissions"
      ? modes
      : position === 2 && AGENT_ARGUMENT[spec.name]?.includes(words[1]!) === true
      ? agentNames
      : [];
    if (choices.includes(prefix)) return undefined;
    items = choices.filter((c) => c.startsWith(prefix)).map((c) => item(c));
  }
  return items.length === 0 ? undefined : { items, prefix };
}

/** A custom command's one-line help: its argument hint and description (file text, made plain). */
export function customHelp(c: { description?: string; argumentHint?: string }): string {
  const text = `${c.argumentHint === undefined ? "" : `${c.argumentHint} — `}${
    c.description ?? "custom command"
  }`;
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, " ");
}

/** The editor's Tab completion: slash commands (Blade's, then custom ones), sub-commands, agent names, modes. */
export function slashAutocomplete(
  agentNames: () => readonly string[],
  modes: readonly string[],
  o: { commands?: () => readonly { name: string; description?: string; argumentHint?: string }[] } = {},
): AutocompleteProvider {
  return {
    getSuggestions: (lines, cursorLine, cursorCol) => {
      if (cursorLine !== 0 || lines.length !== 1) return Promise.resolve(null);
      const before = (lines[0] ?? "").slice(0, cursorCol);
      return Promise.resolve(
        completeSlash(before, { agentNames: agentNames(), modes, custom: o.commands?.() ?? [] }) ?? null,
      );
    },
    applyCompletion: (lines, cursorLine, cursorCol, item, prefix) => {
      const line = lines[cursorLine] ?? "";
      const start = cursorCol - prefix.length;
      const inserted = `${item.value} `;
      const next = [...lines];
      next[cursorLine] = line.slice(0, start) + inserted + line.slice(cursorCol);
      return { lines: next, cursorLine, cursorCol: start + inserted.length };
    },
  };
}
