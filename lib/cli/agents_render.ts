// Owns how `blade agents` output looks: the text tables and detail views for people and the stable
// `--json` shapes for scripts. Pure functions returning strings and plain objects; does not print.
// Agent files are repository-controlled: text views render terminal-safe copies (sanitize.ts) of
// definitions and diagnostics, so a description cannot retitle the window or clear the screen.

import type { ModeCeiling } from "../permissions/ceiling.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { dirname, isAbsolute, relative, sep } from "../path.ts";
import type { Diagnostic } from "../registry/diagnostic.ts";
import type { AgentDefinition, AgentSource } from "../registry/schema.ts";
import { describeTools } from "../registry/snapshot.ts";
import { terminalSafeDeep } from "./sanitize.ts";

/** Turns absolute paths into short ones: relative inside the workspace, `~/…` inside home. */
export interface PathStyle {
  workspace: string;
  home: string | undefined;
}

export function displayPath(path: string, style: PathStyle): string {
  if (!isAbsolute(path)) return path;
  const inside = (root: string) => {
    const rel = relative(root, path);
    return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : undefined;
  };
  const inWorkspace = inside(style.workspace);
  if (inWorkspace !== undefined) return inWorkspace;
  if (path === style.workspace) return ".";
  const inHome = style.home === undefined ? undefined : inside(style.home);
  return inHome === undefined ? path : `~${sep}${inHome}`;
}

/** `file:line: severity: message`, then an indented hint line when there is one. */
export function formatDiagnostic(diagnostic: Diagnostic, style: PathStyle): string {
  const d = terminalSafeDeep(diagnostic);
  const where = d.line === undefined ? displayPath(d.file, style) : `${displayPath(d.file, style)}:${d.line}`;
  const head = `${where}: ${d.severity}: ${d.message}`;
  return d.hint === undefined ? head : `${head}\n  hint: ${d.hint}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "1 error, 2 warnings and 1 info" style counts; empty string when all are zero. */
export function describeCounts(counts: Record<"error" | "warning" | "info", number>): string {
  const parts = [
    counts.error > 0 ? plural(counts.error, "error") : undefined,
    counts.warning > 0 ? plural(counts.warning, "warning") : undefined,
    counts.info > 0 ? `${counts.info} info` : undefined,
  ].filter((p) => p !== undefined);
  return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

const SOURCE_TITLES: Readonly<Record<AgentSource, string>> = {
  builtin: "Built-in agents",
  "user-claude": "User agents from Claude Code",
  "project-claude": "Project agents from Claude Code",
  user: "User agents",
  project: "Project agents",
  flag: "Session agents (--agents)",
};

/** The agent list grouped by source (precedence order), columns aligned across groups. */
export function renderAgentList(
  definitions: readonly AgentDefinition[],
  listed: {
    sources: readonly AgentSource[];
    overridden: readonly AgentDefinition[];
    style: PathStyle;
    bold: (s: string) => string;
  },
): string {
  const agents = terminalSafeDeep(definitions);
  const options = { ...listed, overridden: terminalSafeDeep(listed.overridden) };
  const nameWidth = Math.max(4, ...agents.map((a) => a.name.length));
  const modelWidth = Math.max(5, ...agents.map((a) => a.model.length));
  const toolsWidth = Math.max(5, ...agents.map((a) => describeTools(a).length));
  const blocks: string[] = [];
  for (const source of options.sources) {
    const group = agents.filter((a) => a.source === source);
    const first = group[0];
    if (first === undefined) continue;
    const fromFiles = source !== "builtin" && source !== "flag";
    const title = fromFiles
      ? `${SOURCE_TITLES[source]} (${displayPath(dirname(first.path), options.style)})`
      : SOURCE_TITLES[source];
    const rows = group.map((a) => {
      const cells = [
        a.name.padEnd(nameWidth),
        a.model.padEnd(modelWidth),
        describeTools(a).padEnd(toolsWidth),
      ];
      if (fromFiles) cells.push(a.path.slice(dirname(a.path).length + 1));
      const hidden = options.overridden.filter((o) => o.name === a.name).map((o) => o.source);
      if (hidden.length > 0) cells.push(`(overrides ${hidden.join(", ")})`);
      return `  ${cells.join("  ")}`.trimEnd();
    });
    blocks.push([options.bold(title), ...rows].join("\n"));
  }
  return blocks.join("\n\n");
}

function orNone(values: readonly string[], none = "(none)"): string {
  return values.length === 0 ? none : values.join(", ");
}

function indent(text: string): string {
  return text.split("\n").map((line) => (line === "" ? "" : `  ${line}`)).join("\n");
}

/** One agent in full, for `blade agents show`. */
export function renderAgentDetail(
  definition: AgentDefinition,
  shown: {
    style: PathStyle;
    bold: (s: string) => string;
    diagnostics: readonly Diagnostic[];
    /** The mode a session in `parentMode` would start it in (the capability ceiling). */
    ceiling?: ModeCeiling;
    parentMode?: PermissionMode;
  },
): string {
  const agent = terminalSafeDeep(definition);
  const options = { ...shown, diagnostics: terminalSafeDeep(shown.diagnostics) };
  const settings: [string, string][] = [
    ["Source", `${agent.source} (${displayPath(agent.path, options.style)})`],
    ["Tools", describeTools(agent)],
    ["Disallowed tools", orNone(agent.disallowedTools)],
    ["Model", agent.model],
    [
      "Permission mode",
      (agent.permissionMode === "inherit" ? "inherit (the parent's mode)" : agent.permissionMode) +
      (options.ceiling?.capped === undefined
        ? ""
        : ` — capped to ${options.ceiling.mode} when a ${options.parentMode}-mode session starts it`),
    ],
    ["Max turns", agent.maxTurns === null ? "(no limit)" : String(agent.maxTurns)],
    ["Effort", agent.effort ?? "(the run's)"],
    ["Isolation", agent.isolation],
    ["Background", agent.background ? "yes (always runs in the background)" : "no"],
    ["Color", agent.color ?? "(none)"],
    ["Skills", orNone(agent.skills)],
  ];
  const width = Math.max(...settings.map(([k]) => k.length));
  const parts = [
    options.bold(agent.name),
    indent(agent.description),
    settings.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join("\n"),
    `${options.bold("System prompt")}\n${
      agent.systemPrompt === "" ? "  (empty)" : indent(agent.systemPrompt)
    }`,
  ];
  if (options.diagnostics.length > 0) {
    const notes = options.diagnostics.map((d) => indent(`${d.severity}: ${d.message}`));
    parts.push(`${options.bold("Notes")}\n${notes.join("\n")}`);
  }
  return parts.join("\n\n");
}

/** The `--json` form of an agent: every field in a fixed order; the system prompt only when asked. */
export function agentJson(agent: AgentDefinition, options: { prompt: boolean }): Record<string, unknown> {
  const summary: Record<string, unknown> = {
    name: agent.name,
    description: agent.description,
    source: agent.source,
    path: agent.path,
    tools: agent.tools,
    disallowedTools: agent.disallowedTools,
    model: agent.model,
    permissionMode: agent.permissionMode,
    maxTurns: agent.maxTurns,
    isolation: agent.isolation,
    background: agent.background,
    color: agent.color,
    skills: agent.skills,
  };
  if (options.prompt) summary["systemPrompt"] = agent.systemPrompt;
  return summary;
}
