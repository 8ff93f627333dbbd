import assert from "node:assert/strict";
import { parseRuleList } from "../protocol/tool_rule.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { patternFolder, type WriteScope, writeScope } from "./write_scope.ts";

const WS = "/home/u/proj";
const ROOTS = [WS, "/home/u/lib"];

const rules = (texts: string[]) => parseRuleList(texts).rules;

interface Case {
  name: string;
  deny?: string[];
  limits?: string[][];
  mode?: PermissionMode;
  roots?: string[];
  want: Omit<WriteScope, "notes">;
  /** Text every note list must contain (the rule that narrowed). */
  says?: string[];
}

Deno.test("writeScope: the rules narrow the writable folders (table)", () => {
  const cases: Case[] = [
    { name: "no rules: the roots", want: { writable: ROOTS, readOnly: [] } },
    { name: "plan mode: nothing", mode: "plan", want: { writable: [], readOnly: [] } },
    {
      name: "an agent limited to Edit(docs/**): docs/ only, not the --add-dir folder",
      limits: [["Read", "Edit(docs/**)", "Bash(echo:*)"]],
      want: { writable: [`${WS}/docs`], readOnly: [] },
      says: ["Edit(docs/**)", "docs/"],
    },
    {
      name: "Edit and Write limits: both folders",
      limits: [["Edit(docs/**)", "Write(notes/*.md)"]],
      want: { writable: [`${WS}/docs`, `${WS}/notes`], readOnly: [] },
    },
    {
      name: "a glob keeps its literal folder: src/**/*.ts → src",
      limits: [["Edit(src/**/*.ts)"]],
      want: { writable: [`${WS}/src`], readOnly: [] },
    },
    {
      name: "layers intersect: docs/** under an ancestor's docs/api/** → docs/api",
      limits: [["Edit(docs/api/**)"], ["Edit(docs/**)"]],
      want: { writable: [`${WS}/docs/api`], readOnly: [] },
    },
    {
      name: "disjoint layers: nothing",
      limits: [["Edit(docs/**)"], ["Edit(src/**)"]],
      want: { writable: [], readOnly: [] },
    },
    {
      name: "a layer naming no file writer says nothing about paths",
      limits: [["Read", "Bash(npm test:*)"]],
      want: { writable: ROOTS, readOnly: [] },
    },
    {
      name: "a bare Edit in the layer: every root",
      limits: [["Edit(docs/**)", "Edit"]],
      want: { writable: ROOTS, readOnly: [] },
    },
    {
      name: "a name at any depth (*.md): the whole workspace, not --add-dir (the gate narrows further)",
      limits: [["Edit(*.md)"]],
      want: { writable: [WS], readOnly: [] },
    },
    {
      name: "an absolute folder (//home/u/lib/x/**) inside a root",
      limits: [["Edit(//home/u/lib/x/**)"]],
      want: { writable: ["/home/u/lib/x"], readOnly: [] },
    },
    {
      name: "a folder outside every root: nothing (never wider than the ceiling)",
      limits: [["Edit(//etc/**)", "Edit(~/.ssh/**)"]],
      want: { writable: [], readOnly: [] },
    },
    {
      name: "a rule wider than the roots (//home/**): the roots",
      limits: [["Edit(//home/**)"]],
      want: { writable: ROOTS, readOnly: [] },
    },
    {
      name: "unreadable patterns (.., ~ without home is tested below) narrow to nothing",
      limits: [["Edit(../other/**)", "Edit(docs/../src/**)"]],
      want: { writable: [], readOnly: [] },
    },
    {
      name: "deny Edit(src/secret/**): read-only inside the workspace",
      deny: ["Edit(src/secret/**)"],
      want: { writable: ROOTS, readOnly: [{ path: `${WS}/src/secret`, rule: "Edit(src/secret/**)" }] },
      says: ["Edit(src/secret/**)", "src/secret/ read-only"],
    },
    {
      name: "deny of the very folder the limit names: nothing",
      limits: [["Edit(docs/**)"]],
      deny: ["Edit(docs/**)"],
      want: { writable: [], readOnly: [] },
    },
    {
      name: "deny of a parent of the limit's folder: nothing",
      limits: [["Edit(docs/api/**)"]],
      deny: ["Edit(docs/)"],
      want: { writable: [], readOnly: [] },
    },
    {
      name: "deny below the limit's folder: read-only re-bind",
      limits: [["Edit(docs/**)"]],
      deny: ["Edit(docs/private/**)"],
      want: {
        writable: [`${WS}/docs`],
        readOnly: [{ path: `${WS}/docs/private`, rule: "Edit(docs/private/**)" }],
      },
    },
    {
      name: "deny outside every writable folder: nothing to bind",
      limits: [["Edit(docs/**)"]],
      deny: ["Edit(src/**)"],
      want: { writable: [`${WS}/docs`], readOnly: [] },
    },
    {
      name: "a deny pattern that is no one folder (**/*.env): the gate alone",
      deny: ["Edit(**/*.env)", "Edit(src/*.key)"],
      want: { writable: ROOTS, readOnly: [] },
      says: ["Edit(**/*.env) names no one folder", "Edit(src/*.key) names no one folder"],
    },
    {
      name: "a deny of Write only: the gate alone (Edit may still change those files)",
      deny: ["Write(src/**)"],
      want: { writable: ROOTS, readOnly: [] },
      says: ["Write(src/**) stops Write only"],
    },
    {
      name: "Bash and Read deny rules say nothing about write folders",
      deny: ["Bash(rm:*)", "Read(secrets/**)", "Edit"],
      want: { writable: ROOTS, readOnly: [] },
    },
    {
      name: "a literal file denied: read-only",
      deny: ["Edit(config/app.json)"],
      want: { writable: ROOTS, readOnly: [{ path: `${WS}/config/app.json`, rule: "Edit(config/app.json)" }] },
    },
    {
      name: "a name without a folder (/package.json matches at any depth): the gate alone",
      deny: ["Edit(/package.json)"],
      want: { writable: ROOTS, readOnly: [] },
      says: ["Edit(/package.json) names no one folder"],
    },
    {
      name: "a worktree root with rules relative to its workspace",
      roots: ["/s/worktrees/p/agent"],
      limits: [["Edit(docs/**)"]],
      want: { writable: ["/s/worktrees/p/agent/docs"], readOnly: [] },
    },
  ];
  for (const c of cases) {
    const workspaceRoot = c.roots?.[0] ?? WS;
    const got = writeScope(
      { deny: rules(c.deny ?? []), limits: (c.limits ?? []).map(rules) },
      { mode: c.mode ?? "default", roots: c.roots ?? ROOTS, workspaceRoot, home: "/home/u" },
    );
    assert.deepEqual({ writable: got.writable, readOnly: got.readOnly }, c.want, c.name);
    for (const text of c.says ?? []) {
      assert.ok(
        got.notes.some((n) => n.includes(text)),
        `${c.name}: a note says ${text}: ${got.notes.join(" | ")}`,
      );
    }
  }
});

Deno.test("patternFolder: the literal folder a pattern starts with (table)", () => {
  const scope = { workspaceRoot: WS, home: "/home/u" };
  const cases: [string, ReturnType<typeof patternFolder>][] = [
    ["docs/**", { path: `${WS}/docs`, whole: true }],
    ["docs/", { path: `${WS}/docs`, whole: true }],
    ["./docs/a.md", { path: `${WS}/docs/a.md`, whole: true }],
    ["/docs/*.md", { path: `${WS}/docs`, whole: false }],
    ["src/**/x/*.ts", { path: `${WS}/src`, whole: false }],
    ["*.md", { path: WS, whole: false }],
    ["**", { path: WS, whole: true }],
    ["//opt/x/**", { path: "/opt/x", whole: true }],
    ["~/notes/**", { path: "/home/u/notes", whole: true }],
    ["docs/{a,b}/**", { path: `${WS}/docs`, whole: false }],
    ["docs/[ab]/x", { path: `${WS}/docs`, whole: false }],
    ["../x/**", undefined],
    ["docs//x", undefined],
    ["docs\\/x/**", undefined],
  ];
  for (const [pattern, want] of cases) assert.deepEqual(patternFolder(pattern, scope), want, pattern);
  assert.equal(patternFolder("~/x/**", { workspaceRoot: WS }), undefined, "~ without a home folder");
});
