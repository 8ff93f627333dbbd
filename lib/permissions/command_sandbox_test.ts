import assert from "node:assert/strict";
import { parseRuleList } from "../protocol/tool_rule.ts";
import {
  bwrapArguments,
  type CommandSandboxInput,
  commandSandboxPolicy,
  seatbeltProfile,
} from "./command_sandbox.ts";

const BASE: CommandSandboxInput = {
  trusted: true,
  mode: "default",
  workspaceRoot: "/home/u/proj",
  additionalDirs: ["/home/u/lib"],
  storageRoot: "/home/u/.blade",
  tempDir: "/tmp",
  caches: ["/home/u/.cache"],
  keepVisible: ["/home/u"],
  network: false,
};

const PROTECTED = (root: string) =>
  [".git/hooks", ".git/config", ".blade", ".claude", ".mcp.json"].map((n) => `${root}/${n}`);

Deno.test("commandSandboxPolicy: who may write what (table)", () => {
  const worktree = {
    worktreeRoot: "/home/u/.blade/worktrees/proj-1/agent",
    parentCheckout: "/home/u/proj",
    gitWritable: ["/home/u/proj/.git/worktrees/agent", "/home/u/proj/.git/objects"],
  };
  const cases: [string, Partial<CommandSandboxInput>, ReturnType<typeof commandSandboxPolicy>][] = [
    ["a trusted writing session: workspace, --add-dir, temp, caches", {}, {
      writable: ["/home/u/proj", "/home/u/lib", "/tmp", "/home/u/.cache"],
      readOnly: ["/home/u/.blade", ...PROTECTED("/home/u/proj"), ...PROTECTED("/home/u/lib")],
      network: false,
    }],
    ["plan mode writes nothing; /tmp is private", { mode: "plan" }, {
      writable: [],
      readOnly: ["/home/u/.blade"],
      privateTmp: [],
      network: false,
    }],
    ["a read-only auditor writes nothing", { readOnly: true, mode: "yolo" }, {
      writable: [],
      readOnly: ["/home/u/.blade"],
      privateTmp: [],
      network: false,
    }],
    ["an untrusted folder writes nothing", { trusted: false }, {
      writable: [],
      readOnly: ["/home/u/.blade"],
      privateTmp: [],
      network: false,
    }],
    ["a worktree child: its worktree and git data, never the parent checkout or --add-dir", { worktree }, {
      writable: [
        worktree.worktreeRoot,
        ...worktree.gitWritable,
        "/tmp",
        "/home/u/.cache",
      ],
      readOnly: [
        "/home/u/.blade",
        "/home/u/proj",
        ...PROTECTED(worktree.worktreeRoot),
        `${worktree.worktreeRoot}/.git`,
      ],
      network: false,
    }],
    ["folders under /tmp stay visible behind a private /tmp", {
      mode: "plan",
      workspaceRoot: "/tmp/w",
      additionalDirs: [],
      keepVisible: ["/tmp/home", "/home/u"],
    }, { writable: [], readOnly: ["/home/u/.blade"], privateTmp: ["/tmp/w", "/tmp/home"], network: false }],
    ["the network only when granted", { network: true, mode: "plan" }, {
      writable: [],
      readOnly: ["/home/u/.blade"],
      privateTmp: [],
      network: true,
    }],
  ];
  for (const [name, change, expected] of cases) {
    assert.deepEqual(commandSandboxPolicy({ ...BASE, ...change }), expected, name);
  }
});

Deno.test("commandSandboxPolicy: the session's rules narrow the writable folders (table)", () => {
  const rules = (deny: string[], limits: string[][]) => ({
    deny: parseRuleList(deny).rules,
    limits: limits.map((l) => parseRuleList(l).rules),
  });
  const cases: [string, Partial<CommandSandboxInput>, ReturnType<typeof commandSandboxPolicy>][] = [
    ["no rules that name paths: as before", { rules: rules(["Bash(rm:*)"], [["Read", "Bash(echo:*)"]]) }, {
      writable: ["/home/u/proj", "/home/u/lib", "/tmp", "/home/u/.cache"],
      readOnly: ["/home/u/.blade", ...PROTECTED("/home/u/proj"), ...PROTECTED("/home/u/lib")],
      network: false,
    }],
    ["limited to Edit(docs/**): docs/, temp and caches; protected paths still read-only", {
      rules: rules([], [["Edit(docs/**)", "Bash(echo:*)"]]),
    }, {
      writable: ["/home/u/proj/docs", "/tmp", "/home/u/.cache"],
      readOnly: [
        "/home/u/.blade",
        "/home/u/proj",
        "/home/u/lib",
        ...PROTECTED("/home/u/proj"),
        ...PROTECTED("/home/u/lib"),
      ],
      network: false,
      named: ["/home/u/proj/docs"],
      notes: ["writes are limited to docs/ by the tools rule Edit(docs/**)"],
    }],
    ["a deny rule's folder is bound read-only over the workspace", {
      rules: rules(["Edit(src/secret/**)"], []),
    }, {
      writable: ["/home/u/proj", "/home/u/lib", "/tmp", "/home/u/.cache"],
      readOnly: [
        "/home/u/.blade",
        ...PROTECTED("/home/u/proj"),
        ...PROTECTED("/home/u/lib"),
        "/home/u/proj/src/secret",
      ],
      network: false,
      named: [],
      notes: ["the deny rule Edit(src/secret/**) makes src/secret/ read-only"],
    }],
    ["plan mode: nothing, whatever the rules", { mode: "plan", rules: rules([], [["Edit(docs/**)"]]) }, {
      writable: [],
      readOnly: ["/home/u/.blade"],
      privateTmp: [],
      network: false,
    }],
  ];
  for (const [name, change, expected] of cases) {
    assert.deepEqual(commandSandboxPolicy({ ...BASE, ...change }), expected, name);
  }
  const args = bwrapArguments(
    commandSandboxPolicy({ ...BASE, rules: rules(["Edit(docs/private/**)"], [["Edit(docs/**)"]]) }),
    "/home/u/proj",
  );
  const at = (flag: string, path: string) => args.findIndex((a, i) => a === flag && args[i + 1] === path);
  assert.ok(at("--bind-try", "/home/u/proj/docs") > 0, "docs/ writable");
  assert.equal(at("--bind-try", "/home/u/proj"), -1, "the workspace itself is not bound writable");
  assert.ok(
    at("--ro-bind-try", "/home/u/proj/docs/private") > at("--bind-try", "/home/u/proj/docs"),
    "the denied folder is re-bound read-only after (over) its writable parent",
  );
  // A limit naming a protected folder binds it writable, then read-only again over it (same depth:
  // read-only binds come last), so protected paths stay read-only whatever the rules name.
  const claude = bwrapArguments(
    commandSandboxPolicy({ ...BASE, rules: rules([], [["Edit(.claude/**)"]]) }),
    "/w",
  );
  const claudeAt = (flag: string) =>
    claude.findIndex((a, i) => a === flag && claude[i + 1] === "/home/u/proj/.claude");
  assert.ok(
    claudeAt("--bind-try") > 0 && claudeAt("--ro-bind-try") > claudeAt("--bind-try"),
    claude.join(" "),
  );
  // A workspace under the writable temp folder: bound read-only over /tmp, docs/ writable over it.
  const tmp = bwrapArguments(
    commandSandboxPolicy({
      ...BASE,
      workspaceRoot: "/tmp/w",
      additionalDirs: [],
      rules: rules([], [["Edit(docs/**)"]]),
    }),
    "/tmp/w",
  );
  const tmpAt = (flag: string, path: string) => tmp.findIndex((a, i) => a === flag && tmp[i + 1] === path);
  assert.ok(tmpAt("--bind-try", "/tmp") > 0);
  assert.ok(
    tmpAt("--ro-bind-try", "/tmp/w") > tmpAt("--bind-try", "/tmp"),
    "the workspace read-only over /tmp",
  );
  assert.ok(tmpAt("--bind-try", "/tmp/w/docs") > tmpAt("--ro-bind-try", "/tmp/w"), "docs/ writable over it");
  const profile = seatbeltProfile(commandSandboxPolicy({ ...BASE, rules: rules([], [["Edit(docs/**)"]]) }));
  assert.ok(
    profile.indexOf('(allow file-write* (subpath "/home/u/proj/docs"))') >
      profile.indexOf('(deny file-write* (subpath "/home/u/proj"))'),
    "Seatbelt: the last matching rule wins, so the deeper folder's rule comes later",
  );
});

Deno.test("bwrapArguments: deeper binds after shallower ones, PID namespace, no network, die with parent", () => {
  const args = bwrapArguments({
    writable: ["/w", "/tmp"],
    readOnly: ["/w/.git/hooks", "/s"],
    network: false,
  }, "/w/sub");
  assert.deepEqual(args, [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind-try",
    "/w",
    "/w",
    "--bind-try",
    "/tmp",
    "/tmp",
    "--ro-bind-try",
    "/s",
    "/s",
    "--ro-bind-try",
    "/w/.git/hooks",
    "/w/.git/hooks",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--die-with-parent",
    "--chdir",
    "/w/sub",
    "--",
  ]);
  const open = bwrapArguments(
    { writable: [], readOnly: [], privateTmp: ["/tmp/w"], network: true },
    "/tmp/w",
  );
  assert.ok(!open.includes("--unshare-net"));
  const tmpfs = open.indexOf("--tmpfs");
  assert.ok(
    tmpfs > 0 && tmpfs < open.indexOf("/tmp/w"),
    "the private /tmp comes before what is bound back into it",
  );
});

Deno.test("seatbeltProfile: writes denied but for the writable folders; protected paths and network denied", () => {
  const profile = seatbeltProfile({ writable: ["/w"], readOnly: ["/w/.claude"], network: false });
  assert.match(profile, /\(deny file-write\*\)\n/);
  assert.match(profile, /\(allow file-write\* \(subpath "\/w"\)\)/);
  assert.match(profile, /\(deny file-write\* \(subpath "\/w\/\.claude"\)\)/);
  assert.match(profile, /\(deny network\*\)/);
  assert.ok(!seatbeltProfile({ writable: [], readOnly: [], network: true }).includes("deny network"));
});
