import assert from "node:assert/strict";
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
