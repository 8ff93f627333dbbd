import assert from "node:assert/strict";
import { sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { projectKeyOf, type RepositoryFacts, rootHere, sameProject } from "./project_key.ts";
import { decodeRunIndex, encodeRunIndex, summarize } from "./run_summary.ts";
import { SidecarRecordSchema } from "./schema.ts";

const ROOT = "0123456789abcdef0123456789abcdef01234567";
const SHA256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

Deno.test("projectKeyOf: the first-parent root commit plus the folder's place; none when clones could differ", () => {
  const cases: [string, RepositoryFacts, string | undefined][] = [
    ["repository root", { roots: `${ROOT}\n`, shallowAndPrefix: "false\n\n" }, `git:${ROOT}`],
    [
      "subfolder",
      { roots: `${ROOT}\n`, shallowAndPrefix: "false\npackages/api/\n" },
      `git:${ROOT}:packages/api`,
    ],
    ["SHA-256 repository", { roots: `${SHA256}\n`, shallowAndPrefix: "false\n\n" }, `git:${SHA256}`],
    // A shallow clone's oldest commit is where the clone was cut, not the repository's root.
    ["shallow clone", { roots: `${ROOT}\n`, shallowAndPrefix: "true\n\n" }, undefined],
    ["not a repository", { roots: undefined, shallowAndPrefix: undefined }, undefined],
    ["no commit yet", { roots: undefined, shallowAndPrefix: "false\n\n" }, undefined],
    ["no root printed", { roots: "", shallowAndPrefix: "false\n\n" }, undefined],
    ["two roots (cannot happen with --first-parent)", {
      roots: `${ROOT}\n${ROOT.replace("0", "f")}\n`,
      shallowAndPrefix: "false\n\n",
    }, undefined],
    ["not a commit id", { roots: "HEAD\n", shallowAndPrefix: "false\n\n" }, undefined],
    ["uppercase id", { roots: `${ROOT.toUpperCase()}\n`, shallowAndPrefix: "false\n\n" }, undefined],
    // A git too old for --is-shallow-repository echoes the option back.
    ["old git", { roots: `${ROOT}\n`, shallowAndPrefix: "--is-shallow-repository\n\n" }, undefined],
    ["prefix missing", { roots: `${ROOT}\n`, shallowAndPrefix: "false" }, undefined],
  ];
  for (const [name, facts, want] of cases) assert.equal(projectKeyOf(facts), want, name);
});

Deno.test("sameProject: the key decides when both sides have one, else the path", () => {
  const KEY = `git:${ROOT}`;
  const cases: [
    string,
    { parentProjectPath: string; projectKey?: string },
    { path: string; key?: string },
    boolean,
  ][] = [
    ["same key, other machine's path", { parentProjectPath: "/ci/a", projectKey: KEY }, {
      path: "/home/me/a",
      key: KEY,
    }, true],
    [
      "other key, same path",
      { parentProjectPath: "/w", projectKey: `${KEY}:x` },
      { path: "/w", key: KEY },
      false,
    ],
    ["subfolder is another project", { parentProjectPath: "/ci/a/x", projectKey: `${KEY}:x` }, {
      path: "/home/me/a",
      key: KEY,
    }, false],
    // Records written before the key existed, or by the file store: the path, as before.
    ["record without key, same path", { parentProjectPath: "/w" }, { path: "/w", key: KEY }, true],
    [
      "record without key, other path",
      { parentProjectPath: "/ci/a" },
      { path: "/home/me/a", key: KEY },
      false,
    ],
    // A folder git cannot describe (not a repository, shallow): the path.
    ["no key here, same path", { parentProjectPath: "/w", projectKey: KEY }, { path: "/w" }, true],
    [
      "no key here, other path",
      { parentProjectPath: "/ci/a", projectKey: KEY },
      { path: "/home/me/a" },
      false,
    ],
    ["no keys, same path", { parentProjectPath: "/w" }, { path: "/w" }, true],
    ["no keys, other path", { parentProjectPath: "/w" }, { path: "/v" }, false],
  ];
  for (const [name, run, here, want] of cases) assert.equal(sameProject(run, here), want, name);
});

Deno.test("a record's project key reaches its summary and survives the run index (and the record check)", () => {
  const KEY = `git:${ROOT}:packages/api`;
  const record = sidecarFixture("agent-k", { projectKey: KEY, machine: "ci-7" });
  assert.equal(SidecarRecordSchema.safeParse(record).success, true);
  assert.equal(SidecarRecordSchema.safeParse({ ...record, projectKey: "" }).success, false);
  const summary = summarize(record);
  assert.equal(summary.projectKey, KEY);
  assert.deepEqual(decodeRunIndex(encodeRunIndex([summary]))?.get("agent-k"), summary);
  // Without a key (the file store's records), the summary has none: selection goes by path.
  assert.equal("projectKey" in summarize(sidecarFixture("agent-p")), false);
});

Deno.test("rootHere: a run's workspace moved to this checkout; none for a worktree outside the folder", () => {
  const cases: [string, { parentProjectPath: string; workspaceRoot: string }, string | undefined][] = [
    [
      "started here: as recorded",
      { parentProjectPath: "/home/me/a", workspaceRoot: "/home/me/a/.wt/x" },
      "/home/me/a/.wt/x",
    ],
    ["the other clone's folder", { parentProjectPath: "/ci/a", workspaceRoot: "/ci/a" }, "/home/me/a"],
    [
      "a folder inside it",
      { parentProjectPath: "/ci/a", workspaceRoot: "/ci/a/src/lib" },
      "/home/me/a/src/lib",
    ],
    // A prefix of the name is not the folder.
    ["a sibling with a longer name", { parentProjectPath: "/ci/a", workspaceRoot: "/ci/ab" }, undefined],
    [
      "a worktree elsewhere",
      { parentProjectPath: "/ci/a", workspaceRoot: "/ci/worktrees/agent-1" },
      undefined,
    ],
    // Another machine's record may say anything: it never places the run outside this checkout.
    ["a path climbing out", { parentProjectPath: "/ci/a", workspaceRoot: "/ci/a/../../root" }, undefined],
    [
      "a path climbing back in",
      { parentProjectPath: "/ci/a", workspaceRoot: "/ci/a/x/../src" },
      "/home/me/a/src",
    ],
  ];
  for (const [name, run, want] of cases) assert.equal(rootHere(run, "/home/me/a"), want, name);
});
