// Owns real git repositories in temp folders for tests (worktree lifecycle, write guard, e2e):
// `gitRepo()` makes a repository with one commit and returns helpers to run git in it. Uses real git
// through the Process port; never imported by main.ts.

import { join } from "node:path";
import { realPorts } from "../sys/mod.ts";
import { processGit } from "../worktree/git.ts";
import type { WorktreeDeps } from "../worktree/lifecycle.ts";
import { FakeClock } from "./fakes.ts";

export interface GitRepo extends AsyncDisposable {
  /** Canonical temp folder holding `repo/` and `storage/`. */
  dir: string;
  /** Canonical repository root. */
  root: string;
  storage: string;
  /** `git -C <cwd ?? root> …`, throwing on failure; returns stdout. */
  git(args: string[], cwd?: string): Promise<string>;
  write(relative: string, text: string): Promise<void>;
  commitAll(message: string): Promise<string>;
  deps(clock?: FakeClock): WorktreeDeps;
}

const IDENTITY = [
  "-c",
  "user.name=Blade Test",
  "-c",
  "user.email=test@blade.invalid",
  "-c",
  "commit.gpgsign=false",
];

export async function gitRepo(
  files: Record<string, string> = { "README.md": "# test\n", "src/a.ts": "export const a = 1;\n" },
  options: { commit?: boolean; bare?: boolean } = {},
): Promise<GitRepo> {
  const ports = realPorts();
  const dir = await ports.fs.realPath(await ports.fs.makeTempDir("blade-git-"));
  const root = join(dir, "repo");
  const storage = join(dir, "storage");
  await ports.fs.ensureDir(root, 0o755);
  await ports.fs.ensureDir(storage, 0o700);
  const git = processGit(ports.process, ports.env);
  const run = async (args: string[], cwd = root) => {
    const r = await git.run(cwd, [...IDENTITY, ...args]);
    if (!r.ok) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
    return r.stdout;
  };
  const write = async (relative: string, text: string) => {
    const path = join(root, relative);
    await ports.fs.ensureDir(join(path, ".."), 0o755);
    await ports.fs.writeText(path, text);
  };
  await run(
    options.bare === true ? ["init", "--quiet", "--bare", "-b", "main"] : ["init", "--quiet", "-b", "main"],
  );
  const commitAll = async (message: string) => {
    await run(["add", "-A"]);
    await run(["commit", "--quiet", "--allow-empty", "-m", message]);
    return (await run(["rev-parse", "HEAD"])).trim();
  };
  if (options.bare !== true) {
    for (const [path, text] of Object.entries(files)) await write(path, text);
    if (options.commit !== false) await commitAll("initial");
  }
  return {
    dir,
    root,
    storage,
    git: run,
    write,
    commitAll,
    deps: (clock = new FakeClock()) => ({
      git,
      fs: ports.fs,
      clock,
      worktreesDir: join(storage, "worktrees"),
    }),
    async [Symbol.asyncDispose]() {
      await ports.fs.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
