// Owns where a session's writes may land once its rules are applied (docs/reference/permissions.md
// "Rules narrow the OS layers"): the folders its path rules name, as the Worker's Deno write grant
// (deno_permissions.ts) and its commands' writable binds (command_sandbox.ts) use them. An agent's
// `tools` limit on file writers (`Edit(docs/**)`, one layer per agent on the way: ceiling.ts) narrows
// the writable roots to the literal folder each pattern starts with, intersected layer by layer; a
// deny rule on a folder (`Edit(src/secret/**)`) makes that folder read-only. Never wider than the
// roots it is given (the ceiling's); a pattern it cannot read narrows to nothing; each narrowing says
// which rule made it. Pure: no I/O; the caller keeps only folders whose real path is the path itself.

import type { PermissionMode } from "../protocol/permission_mode.ts";
import type { ToolRule } from "../protocol/tool_rule.ts";
import { hasMagic } from "../protocol/glob_pattern.ts";
import { limitsOf, rulesOf, type RuleTexts } from "./run_rules.ts";

/** Tools whose rules name the files they write; an `Edit` rule names all three (tool_rule.ts). */
export const FILE_WRITERS: readonly string[] = ["Edit", "Write", "NotebookEdit"];

/** The rules that narrow writes: the session's deny rules and its agents' `tools` layers. */
export interface PathRules {
  deny: readonly ToolRule[];
  limits?: readonly (readonly ToolRule[])[] | undefined;
}

/** The PathRules of a session's effective rules as text (a child's: ceiling.ts childRulesOf). */
export function pathRulesOf(texts: RuleTexts | undefined): PathRules {
  return { deny: rulesOf(texts).deny, limits: limitsOf(texts) };
}

export interface WriteScopeInput {
  mode: PermissionMode;
  /** The writable roots before rules (canonical): the workspace or worktree, --add-dir folders. */
  roots: readonly string[];
  /** What relative patterns are relative to (the session's workspace root, as the gate reads them). */
  workspaceRoot: string;
  home?: string | undefined;
}

/** A path the rules make read-only inside a writable folder, and the rule that does. */
export interface DeniedPath {
  path: string;
  rule: string;
}

export interface WriteScope {
  /** The writable folders once the rules are applied: each inside one of the roots. */
  writable: string[];
  /** Paths inside `writable` that deny rules make read-only (bound read-only for commands). */
  readOnly: DeniedPath[];
  /** One line per rule that narrowed writes, or that only the permission gate can enforce. */
  notes: string[];
}

/** Where the session may write: `input.roots` narrowed by `rules`. */
export function writeScope(rules: PathRules, input: WriteScopeInput): WriteScope {
  if (input.mode === "plan") return { writable: [], readOnly: [], notes: ["plan mode writes nothing"] };
  let writable = outermost(input.roots);
  const notes: string[] = [];
  for (const layer of rules.limits ?? []) {
    const writers = layer.filter((r) => FILE_WRITERS.includes(r.tool));
    // A layer naming no file writer says nothing about paths; a bare `Edit` or `Write` allows them all.
    if (writers.length === 0 || writers.some((r) => r.specifier === undefined)) continue;
    const folders = writers.flatMap((r) => {
      const folder = patternFolder(r.specifier!, input);
      return folder === undefined ? [] : [folder.path];
    });
    writable = intersect(writable, folders);
    const texts = writers.map((r) => r.text).join(", ");
    notes.push(`writes are limited to ${describe(writable, input.workspaceRoot)} by the tools rule ${texts}`);
  }
  const readOnly: DeniedPath[] = [];
  for (const rule of rules.deny) {
    if (!FILE_WRITERS.includes(rule.tool) || rule.specifier === undefined) continue;
    const folder = patternFolder(rule.specifier, input);
    if (folder === undefined || !folder.whole) {
      notes.push(`the deny rule ${rule.text} names no one folder: the permission gate alone enforces it`);
      continue;
    }
    if (rule.tool !== "Edit") {
      notes.push(`the deny rule ${rule.text} stops ${rule.tool} only: the permission gate alone enforces it`);
      continue;
    }
    // A writable folder inside the denied one goes; a denied folder inside a writable one is bound
    // read-only over it (commands; a Deno grant cannot subtract, so there the gate enforces it).
    const kept = writable.filter((w) => !within(w, folder.path));
    const inside = kept.some((w) => within(folder.path, w));
    if (kept.length < writable.length || inside) {
      notes.push(
        `the deny rule ${rule.text} makes ${describe([folder.path], input.workspaceRoot)} read-only`,
      );
    }
    writable = kept;
    if (inside && !readOnly.some((d) => d.path === folder.path)) {
      readOnly.push({ path: folder.path, rule: rule.text });
    }
  }
  return { writable, readOnly, notes };
}

/**
 * The literal folder a path pattern starts with, read as the gate reads patterns (tool_rule.ts
 * pathMatches): `//p` absolute, `~/p` in the home folder, `/p`, `./p` and `p` in the workspace, a
 * pattern without `/` a name at any depth (the whole base). `whole`: the pattern is that path and
 * everything below it (`docs/**`, `docs/`, `docs/a.md`). Undefined for what cannot be read safely
 * (`..` or `.` segments, `~` without a home folder, an escape).
 */
export function patternFolder(
  specifier: string,
  scope: { workspaceRoot: string; home?: string | undefined },
): { path: string; whole: boolean } | undefined {
  let pattern = specifier.trim();
  let base = scope.workspaceRoot;
  if (pattern.startsWith("//")) {
    base = "/";
    pattern = pattern.slice(2);
  } else if (pattern === "~" || pattern.startsWith("~/")) {
    if (scope.home === undefined) return undefined;
    base = scope.home;
    pattern = pattern.slice(2);
  } else if (pattern.startsWith("/")) pattern = pattern.slice(1);
  else if (pattern.startsWith("./")) pattern = pattern.slice(2);
  if (pattern.endsWith("/")) pattern = `${pattern}**`;
  if (pattern === "" || pattern === "**") return { path: base, whole: true };
  if (!pattern.includes("/")) return { path: base, whole: false };
  const segments = pattern.split("/");
  const literal: string[] = [];
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === ".." || segment.includes("\\")) return undefined;
    if (hasMagic(segment)) break;
    literal.push(segment);
  }
  const rest = segments.slice(literal.length);
  const whole = rest.length === 0 || (rest.length === 1 && rest[0] === "**");
  const root = base === "/" ? "" : trimEnd(base);
  return { path: [root, ...literal].join("/") || "/", whole };
}

/** Whether `path` is `folder` or below it. */
export function within(path: string, folder: string): boolean {
  const f = trimEnd(folder);
  return path === folder || path === f || path.startsWith(`${f}/`);
}

/** The folders both lists allow: for each pair, the deeper one when one holds the other. */
function intersect(a: readonly string[], b: readonly string[]): string[] {
  const both: string[] = [];
  for (const x of a) {
    for (const y of b) {
      if (within(x, y)) both.push(x);
      else if (within(y, x)) both.push(y);
    }
  }
  return outermost(both);
}

/** Distinct folders, without those inside another of them. */
function outermost(folders: readonly string[]): string[] {
  const all = [...new Set(folders)];
  return all.filter((f, i) => !all.some((other, j) => j !== i && other !== f && within(f, other)));
}

function describe(folders: readonly string[], workspaceRoot: string): string {
  if (folders.length === 0) return "no folder";
  return folders.map((f) =>
    f === workspaceRoot
      ? "the workspace"
      : within(f, workspaceRoot)
      ? `${f.slice(trimEnd(workspaceRoot).length + 1)}/`
      : f
  ).join(", ");
}

function trimEnd(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
