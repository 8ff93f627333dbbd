import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import {
  bladeProcessPermissions,
  type ChildPermissionInput,
  childPermissions,
  type DenoPermissionSet,
  IGNORED_ENV,
  toDenoFlags,
  toWorkerPermissions,
} from "./deno_permissions.ts";
import { v8FlagsArg } from "../sys/v8_flags.ts";
import { PERMISSION_MODES } from "../protocol/permission_mode.ts";
import { parseRuleList } from "../protocol/tool_rule.ts";
import type { PathRules } from "./write_scope.ts";

function pathRules(deny: string[], limits: string[][]): PathRules {
  return { deny: parseRuleList(deny).rules, limits: limits.map((l) => parseRuleList(l).rules) };
}

const ST = "/home/u/.blade";
/** The child's own project folder: the only part of the storage root it reads. */
const PROJ = `${ST}/projects/-ws`;
const STORAGE_WRITES = [`${ST}/agents/sessions`, `${ST}/projects`, `${ST}/worktrees`];
const READ_ONLY = ["Read", "Glob", "Grep"];
const SHELL = ["setsid", "bwrap", "sandbox-exec", "bash", "sh"];
const ALL_TOOLS = ["Read", "Write", "Edit", "Glob", "Grep", "Bash", "Task", "TaskOutput", "TaskStop"];

const BASE: ChildPermissionInput = {
  trusted: true,
  mode: "default",
  tools: READ_ONLY,
  workspaceRoot: "/ws",
  storageRoot: ST,
  storageReadDirs: [PROJ],
  providerHosts: ["127.0.0.1:8080"],
  envNames: ["ANTHROPIC_API_KEY"],
  extraReadDirs: ["/home/u/.claude/agents"],
};

function expected(overrides: Partial<DenoPermissionSet>): DenoPermissionSet {
  return {
    read: ["/ws", PROJ, "/home/u/.claude/agents"],
    write: false,
    net: ["127.0.0.1:8080"],
    env: ["ANTHROPIC_API_KEY"],
    run: false,
    sys: false,
    ffi: false,
    import: false,
    ...overrides,
  };
}

const CASES: { name: string; input: Partial<ChildPermissionInput>; want: DenoPermissionSet }[] = [
  { name: "read-only tools: no write, no run", input: {}, want: expected({}) },
  { name: "no tools at all", input: { tools: [] }, want: expected({}) },
  {
    name: "all tools, trusted, default mode: workspace + storage data, bash",
    input: { tools: ALL_TOOLS },
    want: expected({ write: ["/ws", ...STORAGE_WRITES], run: SHELL }),
  },
  {
    name: "all tools, trusted, yolo",
    input: { tools: ALL_TOOLS, mode: "yolo" },
    want: expected({ write: ["/ws", ...STORAGE_WRITES], run: SHELL }),
  },
  {
    name: "all tools, trusted, autoEdit",
    input: { tools: ALL_TOOLS, mode: "autoEdit" },
    want: expected({ write: ["/ws", ...STORAGE_WRITES], run: SHELL }),
  },
  {
    name: "plan mode: read-only whatever the tools",
    input: { tools: ALL_TOOLS, mode: "plan" },
    want: expected({}),
  },
  {
    name: "untrusted: storage writes only, never run",
    input: { tools: ALL_TOOLS, trusted: false, mode: "yolo" },
    want: expected({ write: STORAGE_WRITES, run: false }),
  },
  { name: "untrusted read-only", input: { trusted: false }, want: expected({}) },
  {
    name: "--add-dir folders: read like the workspace, written like it when the child writes",
    input: { tools: ALL_TOOLS, additionalDirs: ["/lib2", "/docs"] },
    want: expected({
      read: ["/ws", "/lib2", "/docs", PROJ, "/home/u/.claude/agents"],
      write: ["/ws", "/lib2", "/docs", ...STORAGE_WRITES],
      run: SHELL,
    }),
  },
  {
    name: "--add-dir folders, read-only child: read only",
    input: { additionalDirs: ["/lib2"] },
    want: expected({ read: ["/ws", "/lib2", PROJ, "/home/u/.claude/agents"] }),
  },
  {
    name: "--add-dir folders, child isolated in a worktree: read, never written",
    input: { tools: ALL_TOOLS, additionalDirs: ["/lib2"], isolated: true },
    want: expected({
      read: ["/ws", "/lib2", PROJ, "/home/u/.claude/agents"],
      write: ["/ws", ...STORAGE_WRITES],
      run: SHELL,
    }),
  },
  {
    name: "--add-dir folders, untrusted: read, never written",
    input: { tools: ALL_TOOLS, additionalDirs: ["/lib2"], trusted: false },
    want: expected({ read: ["/ws", "/lib2", PROJ, "/home/u/.claude/agents"], write: STORAGE_WRITES }),
  },
  {
    name: "Write without Bash: write, no run",
    input: { tools: ["Read", "Write"] },
    want: expected({ write: ["/ws", ...STORAGE_WRITES] }),
  },
  {
    name: "Edit alone makes the set writable",
    input: { tools: ["Edit"] },
    want: expected({ write: ["/ws", ...STORAGE_WRITES] }),
  },
  {
    name: "Bash alone: write and bash",
    input: { tools: ["Bash"] },
    want: expected({ write: ["/ws", ...STORAGE_WRITES], run: SHELL }),
  },
  {
    name: "worktree management adds git even in plan mode",
    input: { mode: "plan", manageWorktree: true },
    want: expected({ run: ["git"] }),
  },
  {
    name: "worktree management adds git even untrusted",
    input: { trusted: false, tools: ALL_TOOLS, manageWorktree: true },
    want: expected({ write: STORAGE_WRITES, run: ["git"] }),
  },
  {
    name: "worktree management with Bash",
    input: { tools: ALL_TOOLS, manageWorktree: true },
    want: expected({ write: ["/ws", ...STORAGE_WRITES], run: [...SHELL, "git"] }),
  },
  {
    name: "custom shell programs",
    input: { tools: ALL_TOOLS, shellPrograms: ["sh", "setsid"] },
    want: expected({ write: ["/ws", ...STORAGE_WRITES], run: ["sh", "setsid"] }),
  },
  {
    name: "isolated worktree inside the storage root is covered by it",
    input: { tools: ALL_TOOLS, workspaceRoot: `${ST}/worktrees/repo-0123456789ab/agent+x` },
    want: expected({
      read: [`${ST}/worktrees/repo-0123456789ab/agent+x`, PROJ, "/home/u/.claude/agents"],
      write: STORAGE_WRITES,
      run: SHELL,
    }),
  },
  {
    name: "no providers, no variables",
    input: { providerHosts: [], envNames: [] },
    want: expected({ net: false, env: false }),
  },
  {
    name: "duplicates, trailing separators and nested paths collapse",
    input: {
      extraReadDirs: ["/ws/", "/ws/sub", "/other", "/other/", "/wsx"],
      providerHosts: ["a:1", "a:1", "b:2"],
      envNames: ["X", "X", ""],
    },
    want: expected({ read: ["/ws", PROJ, "/other", "/wsx"], net: ["a:1", "b:2"], env: ["X"] }),
  },
  {
    name: "module folders for computed imports are readable",
    input: { extraReadDirs: [], moduleDirs: ["/opt/blade/lib"] },
    want: expected({ read: ["/ws", PROJ, "/opt/blade/lib"] }),
  },
  {
    name: "session records written by the child itself stay writable in plan mode",
    input: { mode: "plan", tools: ALL_TOOLS, sessionWriteDirs: [`${ST}/projects/-ws`] },
    want: expected({ write: [`${ST}/projects/-ws`] }),
  },
  {
    name: "session records inside a granted storage folder collapse into it",
    input: { tools: ALL_TOOLS, sessionWriteDirs: [`${ST}/projects/-ws`] },
    want: expected({ write: ["/ws", ...STORAGE_WRITES], run: SHELL }),
  },
  { name: "sys names", input: { sysNames: ["hostname"] }, want: expected({ sys: ["hostname"] }) },
  {
    name: "an agent limited to Edit(docs/**): the workspace grant narrows to docs/ (--add-dir dropped)",
    input: {
      tools: ALL_TOOLS,
      additionalDirs: ["/lib"],
      rules: pathRules([], [["Edit(docs/**)", "Bash(echo:*)"]]),
    },
    want: expected({
      read: ["/ws", "/lib", PROJ, "/home/u/.claude/agents"],
      write: ["/ws/docs", ...STORAGE_WRITES],
      run: SHELL,
    }),
  },
  {
    name: "a narrowed worktree child does not get its worktree back through <storage>/worktrees",
    input: {
      tools: ALL_TOOLS,
      workspaceRoot: `${ST}/worktrees/ws-1/agent`,
      isolated: true,
      storageReadDirs: [],
      extraReadDirs: [],
      rules: pathRules([], [["Edit(docs/**)"]]),
    },
    want: expected({
      read: [`${ST}/worktrees/ws-1/agent`],
      write: [`${ST}/worktrees/ws-1/agent/docs`, `${ST}/agents/sessions`, `${ST}/projects`],
      run: SHELL,
    }),
  },
  {
    name: "a deny rule on the limit's folder leaves no workspace write",
    input: { tools: ["Edit"], rules: pathRules(["Edit(docs/**)"], [["Edit(docs/**)"]]) },
    want: expected({ write: STORAGE_WRITES }),
  },
  {
    name: "a deny rule inside the workspace cannot be subtracted from a Deno grant: the gate enforces it",
    input: { tools: ["Edit"], rules: pathRules(["Edit(src/secret/**)"], []) },
    want: expected({ write: ["/ws", ...STORAGE_WRITES] }),
  },
  {
    name: "limits without file-writer rules leave the workspace whole",
    input: { tools: ALL_TOOLS, rules: pathRules([], [["Read", "Bash(npm test:*)"]]) },
    want: expected({ write: ["/ws", ...STORAGE_WRITES], run: SHELL }),
  },
  {
    name: "Windows paths",
    input: {
      tools: ALL_TOOLS,
      workspaceRoot: "C:\\ws",
      storageRoot: "C:\\Users\\u\\.blade",
      storageReadDirs: ["C:\\Users\\u\\.blade\\projects\\C_-ws"],
      extraReadDirs: ["C:\\ws\\sub"],
    },
    want: expected({
      read: ["C:\\ws", "C:\\Users\\u\\.blade\\projects\\C_-ws"],
      write: [
        "C:\\ws",
        "C:\\Users\\u\\.blade\\agents\\sessions",
        "C:\\Users\\u\\.blade\\projects",
        "C:\\Users\\u\\.blade\\worktrees",
      ],
      run: SHELL,
    }),
  },
];

for (const c of CASES) {
  Deno.test(`childPermissions: ${c.name}`, () => {
    assert.deepEqual(childPermissions({ ...BASE, ...c.input }), c.want);
  });
}

Deno.test("childPermissions: invariants over every mode, trust and tool set", () => {
  for (const mode of PERMISSION_MODES) {
    for (const trusted of [true, false]) {
      for (const tools of [[], READ_ONLY, ["Write"], ["Edit"], ["Bash"], ALL_TOOLS]) {
        const set = childPermissions({ ...BASE, mode, trusted, tools });
        const writes = mode !== "plan" && tools.some((t) => ["Write", "Edit", "Bash"].includes(t));
        const shell = trusted && mode !== "plan" && tools.includes("Bash");
        const label = `${mode} trusted=${trusted} tools=${tools.join(",")}`;
        assert.equal(set.write !== false, writes, label);
        assert.equal(set.run !== false, shell, label);
        if (Array.isArray(set.write) && !trusted) assert.ok(!set.write.includes("/ws"), label);
        for (const kind of ["read", "write", "net", "env", "run", "sys"] as const) {
          assert.notEqual(set[kind], true, `${label}: ${kind} is never whole for a child`);
        }
        assert.equal(set.ffi, false);
        assert.equal(set.import, false);
      }
    }
  }
});

Deno.test("childPermissions: the storage root is never readable whole, only the child's own project folder", () => {
  for (const mode of PERMISSION_MODES) {
    for (const tools of [[], READ_ONLY, ALL_TOOLS]) {
      const set = childPermissions({ ...BASE, mode, tools });
      assert.ok(Array.isArray(set.read));
      const readable = (path: string) =>
        set.read !== false && set.read !== true &&
        set.read.some((r) => path === r || path.startsWith(`${r}/`));
      assert.ok(readable(`${PROJ}/agent-1.jsonl`), "its own transcripts");
      for (
        const other of [
          ST,
          `${ST}/projects/-elsewhere/s.jsonl`,
          `${ST}/agents/sessions/a.json`,
          `${ST}/trust.json`,
          `${ST}/config.json`,
        ]
      ) {
        assert.ok(!readable(other), `${mode} ${tools.join(",")}: ${other}`);
      }
    }
  }
});

Deno.test("childPermissions: trust.json, config.json and user agents are never writable", () => {
  const set = childPermissions({ ...BASE, tools: ALL_TOOLS, mode: "yolo" });
  assert.ok(Array.isArray(set.write));
  assert.ok(!set.write.includes(ST));
  for (const path of set.write) {
    assert.ok(!`${ST}/trust.json`.startsWith(`${path}/`), path);
    assert.ok(!`${ST}/agents/x.md`.startsWith(`${path}/`), path);
  }
});

Deno.test("toWorkerPermissions: every kind explicit, lists copied", () => {
  const set = childPermissions({ ...BASE, tools: ALL_TOOLS });
  const worker = toWorkerPermissions(set);
  assert.deepEqual(worker, {
    read: ["/ws", PROJ, "/home/u/.claude/agents"],
    write: ["/ws", ...STORAGE_WRITES],
    net: ["127.0.0.1:8080"],
    env: ["ANTHROPIC_API_KEY"],
    run: SHELL,
    sys: false,
    ffi: false,
    import: false,
  });
  assert.notEqual(worker.read, set.read);
  assert.equal(toWorkerPermissions(bladeProcessPermissions()).import, false);
});

const FLAG_CASES: { name: string; set: DenoPermissionSet; ignoreEnv?: string[]; want: string[] }[] = [
  {
    name: "child set",
    set: childPermissions({ ...BASE, tools: ALL_TOOLS }),
    want: [
      "--no-prompt",
      `--allow-read=/ws,${PROJ},/home/u/.claude/agents`,
      `--allow-write=/ws,${STORAGE_WRITES.join(",")}`,
      "--allow-net=127.0.0.1:8080",
      "--allow-env=ANTHROPIC_API_KEY",
      "--allow-run=setsid,bwrap,sandbox-exec,bash,sh",
      "--deny-import",
      `--ignore-env=${IGNORED_ENV.join(",")}`,
    ],
  },
  {
    name: "nothing granted",
    set: { read: false, write: false, net: [], env: false, run: false, sys: false, ffi: false },
    ignoreEnv: [],
    want: ["--no-prompt"],
  },
  {
    name: "whole kinds",
    set: { read: true, write: false, net: true, env: ["A"], run: false, sys: ["uid"], ffi: false },
    ignoreEnv: ["X"],
    want: [
      "--no-prompt",
      "--allow-read",
      "--allow-net",
      "--allow-env=A",
      "--allow-sys=uid",
      "--ignore-env=X",
    ],
  },
];

for (const c of FLAG_CASES) {
  Deno.test(`toDenoFlags: ${c.name}`, () => {
    const flags = toDenoFlags(c.set, c.ignoreEnv === undefined ? {} : { ignoreEnv: c.ignoreEnv });
    assert.deepEqual(flags, c.want);
    assert.ok(!flags.includes("-A") && !flags.includes("--allow-all"));
  });
}

Deno.test("toDenoFlags: a comma in a path cannot be expressed and is refused", () => {
  const set = childPermissions({ ...BASE, workspaceRoot: "/a,b" });
  assert.throws(
    () => toDenoFlags(set),
    (e: unknown) => e instanceof BladeError && e.code === "permission_flag_value",
  );
});

Deno.test("bladeProcessPermissions: the `blade` task in deno.json grants exactly these flags", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const task: string = config.tasks.blade;
  const taskFlags = task.split(/\s+/).filter((word) => word.startsWith("-"));
  // --quiet is not a grant: it keeps Deno's own output (its progress bar) off the interactive screen;
  // the V8 flags are Blade's own (lib/sys/v8_flags.ts), the same as the compiled binary's.
  assert.deepEqual(
    new Set(taskFlags),
    new Set([...toDenoFlags(bladeProcessPermissions()), "--quiet", v8FlagsArg()]),
  );
});
