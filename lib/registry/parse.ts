// Owns turning one agent Markdown file (Claude Code compatible) into an AgentDefinition plus
// diagnostics. Never throws for a bad file. Simple frontmatter takes a fast path; the YAML library is
// imported lazily, only for frontmatter the fast path declines (docs/reference/performance.md: keep start-up light).
// Does not read files or apply precedence (load.ts does).

import { importNpm } from "../npm_module.ts";
import { toolRuleNotes } from "./child_tools.ts";
import { type Diagnostic, diagnostic } from "./diagnostic.ts";
import { type Frontmatter, splitFrontmatter } from "./frontmatter.ts";
import { readLenientFrontmatter } from "./lenient.ts";
import { isReservedAgentName, strictNameProblem } from "./names.ts";
import { readSimpleFrontmatter } from "./simple_yaml.ts";
import {
  AGENT_FIELDS,
  type AgentDefinition,
  agentDefinitionSchema,
  agentHookProblems,
  type AgentSource,
} from "./schema.ts";

export interface ParseAgentOptions {
  /** Shown in diagnostics and recorded in the definition. */
  path: string;
  source: AgentSource;
}

export interface ParseAgentResult {
  /** Absent when the file is skipped (see the error or warning diagnostics). */
  definition?: AgentDefinition;
  diagnostics: Diagnostic[];
}

/** Real Claude Code fields Blade accepts but does not act on yet: info, not warning. */
export const IGNORED_CLAUDE_FIELDS: readonly string[] = [
  "memory",
  "initialPrompt",
  "omitClaudeMd",
  "requiredMcpServers",
  "criticalSystemReminder_EXPERIMENTAL",
];

/** Fields whose bad value skips the file: ignoring them would change what the agent may do. */
const FATAL_FIELDS = new Set(["name", "description", "tools", "disallowedTools", "isolation", "hooks"]);

const FIELD_HINTS: Readonly<Record<string, string>> = {
  name: "Add `name: <agent-name>` to the frontmatter, e.g. `name: code-reviewer`",
  description: "Add `description: <when the parent should use this agent>` to the frontmatter",
  tools:
    "Write `tools: Read, Grep, Glob` or a YAML list; leave it out to inherit every tool, `tools: []` for none",
  disallowedTools: "Write `disallowedTools: Bash, Write` or a YAML list",
  model: "Use an alias (sonnet, opus, haiku), a model id, or `inherit`",
  permissionMode:
    "Use default, acceptEdits, plan, dontAsk or bypassPermissions (Blade also knows autoEdit, yolo); leave it out to inherit the parent's mode",
  maxTurns: "Use a whole number from 1 to 1000, e.g. `maxTurns: 20`",
  isolation:
    "Use `isolation: worktree` to run in a git worktree, `isolation: remote` to run on a worker, or `isolation: none`",
  background: "Use `background: true` or `background: false`",
  color: "Use a color name, e.g. `color: blue`",
  effort: "Use low, medium, high, xhigh or max; leave it out for the run's effort",
  skills: "Write `skills: skill-a, skill-b` or a YAML list",
  hooks:
    "Write Claude Code's hooks map: `hooks:` then `PreToolUse:` with a list of `- matcher: Bash` entries, each with `hooks: [{type: command, command: ./check.sh}]`",
};

interface Fields {
  values: Record<string, unknown>;
  /** File line of each key. */
  lines: Record<string, number>;
}

export async function parseAgentFile(text: string, options: ParseAgentOptions): Promise<ParseAgentResult> {
  const result = await parseUnsorted(text, options);
  // In file order, so a reader can walk down the file; lineless findings keep their place at the end.
  result.diagnostics.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  return result;
}

async function parseUnsorted(text: string, options: ParseAgentOptions): Promise<ParseAgentResult> {
  const file = options.path;
  const diagnostics: Diagnostic[] = [];
  const split = splitFrontmatter(text);
  if (!split.ok) {
    diagnostics.push(
      split.problem === "missing"
        ? diagnostic(
          "error",
          file,
          "No frontmatter: the file must start with a `---` line; agent not loaded",
          {
            line: split.line,
            hint:
              "Start the file with `---`, then `name:` and `description:` lines, then `---`; the prompt follows",
          },
        )
        : diagnostic("error", file, "The frontmatter is not closed; agent not loaded", {
          line: split.line,
          hint: "Add a `---` line after the last frontmatter field",
        }),
    );
    return { diagnostics };
  }
  const fields = readSimpleFrontmatter(split.frontmatter.text, split.frontmatter.firstLine) ??
    await readFields(split.frontmatter, file, diagnostics);
  if (fields === undefined) return { diagnostics };
  const input = pickKnownFields(fields, file, diagnostics);
  const definition = validate(
    { ...input, systemPrompt: split.frontmatter.body, source: options.source, path: file },
    fields.lines,
    { file, diagnostics, openingLine: split.frontmatter.firstLine - 1 },
  );
  if (definition === undefined) return { diagnostics };
  if (options.source !== "builtin" && isReservedAgentName(definition.name)) {
    diagnostics.push(
      diagnostic(
        "warning",
        file,
        `Agent name "${definition.name}" is reserved by Blade; file skipped, the built-in agent is used`,
        {
          line: fields.lines["name"],
          field: "name",
          hint: `Rename the agent, e.g. \`name: ${definition.name}-custom\``,
        },
      ),
    );
    return { diagnostics };
  }
  const naming = nameProblem(definition.name);
  if (naming !== undefined) {
    const at = { line: fields.lines["name"], field: "name", hint: FIELD_HINTS["name"] };
    if (naming.fatal) {
      diagnostics.push(diagnostic("error", file, `${naming.message}; agent not loaded`, at));
      return { diagnostics };
    }
    diagnostics.push(diagnostic("warning", file, naming.message, at));
  }
  addAdvice(definition, fields.lines, diagnostics);
  return { definition, diagnostics };
}

/**
 * A name that is a path (`../../evil`, `a/b`, `..`) is refused: names end up in file names and
 * commands. Any other name outside the strict pattern (an emoji, a space) loads with a warning, as
 * Claude Code loads it, but the model and `blade run` must quote it exactly.
 */
function nameProblem(name: string): { fatal: boolean; message: string } | undefined {
  if (/[\\/]/.test(name) || name === "." || name === "..") {
    return { fatal: true, message: `Agent name ${JSON.stringify(name)} is a path, not a name` };
  }
  if (strictNameProblem(name) === undefined) return undefined;
  return {
    fatal: false,
    message: `Agent name ${JSON.stringify(name)} is not a plain name (letters, digits, "_" and "-")`,
  };
}

/** The yaml package's parts frontmatter reading uses, loaded on first need (lib/npm_module.ts checks them). */
const yamlParts = () =>
  importNpm("yaml", () => import("yaml"), { exports: ["isMap", "isScalar", "LineCounter", "parseDocument"] });

/** YAML first; on a syntax error, the lenient `key: value` reading with a warning; else an error. */
async function readFields(
  frontmatter: Frontmatter,
  file: string,
  diagnostics: Diagnostic[],
): Promise<Fields | undefined> {
  const { isMap, isScalar, LineCounter, parseDocument } = await yamlParts();
  const counter = new LineCounter();
  const doc = parseDocument(frontmatter.text, { lineCounter: counter, prettyErrors: false });
  const firstError = doc.errors[0];
  if (tooDeep(doc, frontmatter.firstLine, file, diagnostics)) return undefined;
  if (firstError === undefined) {
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      diagnostics.push(
        diagnostic("error", file, `Invalid YAML in frontmatter: ${String(e)}; agent not loaded`),
      );
      return undefined;
    }
    if (value === null || value === undefined) return { values: {}, lines: {} };
    if (typeof value !== "object" || Array.isArray(value)) {
      diagnostics.push(
        diagnostic("error", file, "The frontmatter must be `key: value` fields; agent not loaded", {
          line: frontmatter.firstLine,
          hint: "Write one field per line, e.g. `name: reviewer`",
        }),
      );
      return undefined;
    }
    const lines: Record<string, number> = {};
    if (isMap(doc.contents)) {
      for (const pair of doc.contents.items) {
        const start = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
        if (isScalar(pair.key) && start !== undefined) {
          lines[String(pair.key.value)] = counter.linePos(start).line + frontmatter.firstLine - 1;
        }
      }
    }
    return { values: value as Record<string, unknown>, lines };
  }
  const pos = counter.linePos(firstError.pos[0]);
  const line = pos.line + frontmatter.firstLine - 1;
  const where = `line ${line}, column ${pos.col}: ${firstError.message}`;
  const lenient = readLenientFrontmatter(frontmatter.text, frontmatter.firstLine);
  if (!lenient.ok) {
    diagnostics.push(
      diagnostic("error", file, `Invalid YAML in frontmatter at ${where}; agent not loaded`, {
        line,
        hint: 'Fix the YAML syntax; quote values that contain ": " or start with a special character',
      }),
    );
    return undefined;
  }
  diagnostics.push(
    diagnostic(
      "warning",
      file,
      `Frontmatter is not valid YAML (${where}); read as plain \`key: value\` lines`,
      {
        line,
        hint: 'Quote values that contain ": ", e.g. `description: "Use when: …"`',
      },
    ),
  );
  for (const key of lenient.duplicates) {
    diagnostics.push(
      diagnostic("warning", file, `Field "${key}" appears more than once; the last one is used`, {
        line: lenient.lines[key],
        field: key,
      }),
    );
  }
  return { values: lenient.fields, lines: lenient.lines };
}

/**
 * True (with an error) when the parser gave up on nesting deeper than the stack allows: a hostile file,
 * not a typo. Also reports unresolved tags (`!!python/object`, `!!js/function`): plain values, never run.
 */
function tooDeep(
  doc: { errors: readonly { message: string }[]; warnings: readonly { message: string }[] },
  line: number,
  file: string,
  diagnostics: Diagnostic[],
): boolean {
  if (doc.errors.some((e) => /call stack/i.test(e.message))) {
    diagnostics.push(
      diagnostic("error", file, "The frontmatter is too deeply nested to read; agent not loaded", {
        line,
        hint: "Agent fields are flat `key: value` lines and short lists",
      }),
    );
    return true;
  }
  for (const w of doc.warnings.slice(0, 5)) {
    diagnostics.push(diagnostic("warning", file, `YAML: ${w.message}`, { line }));
  }
  return false;
}

function pickKnownFields(fields: Fields, file: string, diagnostics: Diagnostic[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  let unknown = 0;
  for (const [key, value] of Object.entries(fields.values)) {
    const line = fields.lines[key];
    if (AGENT_FIELDS.includes(key)) {
      if (value !== null && value !== undefined) input[key] = value;
    } else if (IGNORED_CLAUDE_FIELDS.includes(key)) {
      diagnostics.push(
        diagnostic("info", file, `"${key}" is a Claude Code field Blade does not support yet; ignored`, {
          line,
          field: key,
        }),
      );
    } else if (++unknown > MAX_UNKNOWN_REPORTED) {
      continue; // summed up below: thousands of junk fields get one line, not thousands
    } else {
      diagnostics.push(
        diagnostic("warning", file, `Unknown field "${key}"; ignored`, {
          line,
          field: key,
          hint: UNKNOWN_FIELD_HINTS.get(squash(key)) ?? `Known fields: ${AGENT_FIELDS.join(", ")}`,
        }),
      );
    }
  }
  if (unknown > MAX_UNKNOWN_REPORTED) {
    diagnostics.push(
      diagnostic("warning", file, `${unknown - MAX_UNKNOWN_REPORTED} more unknown fields; ignored`, {
        hint: `Known fields: ${AGENT_FIELDS.join(", ")}`,
      }),
    );
  }
  return input;
}

const MAX_UNKNOWN_REPORTED = 20;

const squash = (key: string) => key.toLowerCase().replace(/[-_]/g, "");
const UNKNOWN_FIELD_HINTS = new Map([
  ...AGENT_FIELDS.map((f) => [squash(f), `Did you mean "${f}"?`] as const),
  ["allowedtools", 'Did you mean "tools"?'],
  ["prompt", "The system prompt is the Markdown body below the frontmatter"],
  ["systemprompt", "The system prompt is the Markdown body below the frontmatter"],
]);

/** Runs the schema; a bad optional field is dropped with a warning, a bad fatal field skips the file. */
function validate(
  input: Record<string, unknown>,
  lines: Record<string, number>,
  out: { file: string; diagnostics: Diagnostic[]; openingLine: number },
): AgentDefinition | undefined {
  for (;;) {
    const result = agentDefinitionSchema.safeParse(input);
    if (result.success) return result.data;
    let fatal = false;
    const reported = new Set<string>();
    for (const issue of result.error.issues) {
      const field = String(issue.path[0] ?? "");
      if (reported.has(field)) continue;
      reported.add(field);
      // A missing field has no line of its own: point at the frontmatter's opening `---`.
      const at = { line: lines[field] ?? out.openingLine, field, hint: FIELD_HINTS[field] };
      if (FATAL_FIELDS.has(field) || !AGENT_FIELDS.includes(field)) {
        fatal = true;
        const message = input[field] === undefined
          ? `Missing required field "${field}"; agent not loaded`
          : `Invalid "${field}": ${issue.message}; agent not loaded`;
        out.diagnostics.push(diagnostic("error", out.file, message, at));
      } else {
        out.diagnostics.push(
          diagnostic("warning", out.file, `Invalid "${field}": ${issue.message}; field ignored`, at),
        );
        delete input[field];
      }
    }
    if (fatal) return undefined;
  }
}

function addAdvice(
  definition: AgentDefinition,
  lines: Record<string, number>,
  diagnostics: Diagnostic[],
): void {
  const file = definition.path;
  if (definition.systemPrompt === "") {
    diagnostics.push(
      diagnostic("warning", file, "The agent has no system prompt (nothing follows the frontmatter)", {
        hint: "Write the agent's instructions below the closing `---` line",
      }),
    );
  }
  for (const event of agentHookProblems(definition.hooks).unknownEvents) {
    diagnostics.push(diagnostic("warning", file, event, { line: lines["hooks"], field: "hooks" }));
  }
  for (const note of toolRuleNotes(definition)) {
    diagnostics.push(
      diagnostic("warning", file, note.message, { line: lines[note.field], field: note.field }),
    );
  }
}
