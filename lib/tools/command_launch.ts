// Owns how a tool starts a command for the model (docs/reference/permissions.md "The OS sandbox"): in
// the OS sandbox the session's ceiling allows (permissions/command_sandbox.ts; bubblewrap on Linux,
// sandbox-exec on macOS), with an environment without provider keys (unless the user's settings `env`
// passes one back), and what happens where no sandbox runs: rule-only mode with one warning per
// session, or a refusal when the sandbox is required (BLADE_REQUIRE_SANDBOX=1, which
// --require-sandbox and the `sandbox.required` setting set). BLADE_SANDBOX=0 turns the sandbox off.

import {
  bwrapArguments,
  type CommandSandboxPolicy,
  commandSandboxPolicy,
  PROTECTED_NAMES,
  seatbeltProfile,
} from "../permissions/command_sandbox.ts";
import { withoutProviderKeys } from "../permissions/child_env.ts";
import { osSandbox } from "../sys/os_sandbox.ts";
import { sandboxRequired } from "../config/bash_limits.ts";
import { dirname, isAbsolute, resolve } from "../path.ts";
import type { ToolContext } from "./tool.ts";

export type CommandLaunch =
  | { refusal: string }
  | {
    /** The sandbox program and its arguments, up to the command (empty: rule-only mode). */
    sandbox: string[];
    env: Record<string, string>;
    /** Said once per session when the command runs without a sandbox. */
    warning?: string;
    /**
     * Protected paths missing when the command starts (bubblewrap cannot bind what does not exist):
     * created by it, they are set aside when it ends (set_aside_created.ts). Empty without a sandbox
     * and on macOS, whose profile denies them whether they exist or not.
     */
    watched: string[];
    /** Why the session's rules narrowed where the command may write (said when a write fails on it). */
    rulesNote?: string;
  };

/** Sessions already told that their commands run without a sandbox. */
const warned = new Set<string>();

/** Package caches under the home folder that builds and tests write (writable for writing sessions). */
const HOME_CACHES: readonly string[] = [".cache", ".npm", ".deno", ".cargo/registry", ".local/share/pnpm"];

/** How to start a command for `ctx`'s session in folder `cwd`. */
export async function commandLaunch(ctx: ToolContext, cwd: string): Promise<CommandLaunch> {
  const env = ctx.commandEnv ?? { ...withoutProviderKeys(ctx.ports.env.all()), ...ctx.extraEnv };
  const setting = ctx.ports.env.get("BLADE_SANDBOX");
  const off = setting === "0" || setting === "false";
  const kind = off ? undefined : await osSandbox();
  if (kind === undefined) {
    const why = off
      ? "BLADE_SANDBOX=0 turned it off"
      : "this machine has no usable OS sandbox (bubblewrap on Linux, sandbox-exec on macOS)";
    if (sandboxRequired(ctx.ports.env.get("BLADE_REQUIRE_SANDBOX"))) {
      return {
        refusal: `Permission denied: commands must run in an OS sandbox (--require-sandbox or the ` +
          `sandbox.required setting), and ${why}. Install bubblewrap (Debian: apt-get install bubblewrap) ` +
          `or run without requiring the sandbox.`,
      };
    }
    if (warned.has(ctx.sessionId)) return { sandbox: [], env, watched: [] };
    warned.add(ctx.sessionId);
    return {
      sandbox: [],
      env,
      watched: [],
      warning: `Note: this command ran without an OS sandbox: ${why}. Commands run with Blade's own ` +
        `rights, limited only by permission rules (docs/guides/permissions.md).`,
    };
  }
  const home = ctx.ports.env.home();
  const tempDir = env.TMPDIR !== undefined && isAbsolute(env.TMPDIR) ? env.TMPDIR : "/tmp";
  const caches = [
    ...(home === undefined ? [] : HOME_CACHES.map((c) => `${home}/${c}`)),
    ...[env.DENO_DIR, env.XDG_CACHE_HOME, env.npm_config_cache].filter((p) =>
      p !== undefined && isAbsolute(p)
    ),
  ] as string[];
  const policy = commandSandboxPolicy({
    trusted: ctx.trusted,
    mode: ctx.mode,
    workspaceRoot: ctx.workspaceRoot,
    additionalDirs: ctx.additionalDirs ?? [],
    worktree: ctx.worktree === undefined ? undefined : {
      worktreeRoot: ctx.worktree.worktreeRoot,
      parentCheckout: ctx.worktree.parentCheckout,
      gitWritable: await worktreeGitFolders(ctx, ctx.worktree.worktreeRoot),
    },
    storageRoot: ctx.storageRoot,
    tempDir,
    caches,
    keepVisible: [...home === undefined ? [] : [home], ctx.storageRoot, tempDir, ...caches],
    readOnly: ctx.readOnlyCommands === true,
    network: ctx.commandNetwork === true,
    rules: ctx.pathRules,
    home,
  });
  policy.writable = await withoutLinks(ctx, policy);
  // bwrap refuses to bind a path that is missing or under a file (`.git/hooks` when `.git` is a
  // worktree's pointer file): bind only what exists, and protect such a pointer file itself.
  const pointers = await Promise.all(
    policy.writable.map(async (root) =>
      (await kindOf(ctx, `${root}/.git`)) === "file" ? [`${root}/.git`] : []
    ),
  );
  const wanted = [...policy.readOnly, ...pointers.flat()];
  const present = await existing(ctx, wanted);
  // A protected path that is missing, in a folder that exists (not below a missing `.git`: `git init`
  // making `.git/hooks` where there was no repository is its own work).
  const missing = wanted.filter((p) =>
    !present.includes(p) && PROTECTED_NAMES.some((name) => p.endsWith(`/${name}`))
  );
  const parents = await Promise.all(missing.map((p) => kindOf(ctx, dirname(p))));
  const absent = missing.filter((_, i) => parents[i] === "folder");
  if (policy.privateTmp !== undefined) policy.privateTmp = await existing(ctx, policy.privateTmp);
  // A read-only session's /tmp is private and empty: its temp folder is that /tmp.
  const launchEnv = policy.privateTmp === undefined ? env : { ...env, TMPDIR: "/tmp" };
  if (kind === "sandbox-exec") {
    // Seatbelt denies a path whether it exists or not: a missing protected path cannot be created.
    const profile = seatbeltProfile({ ...policy, readOnly: [...present, ...absent] });
    return { sandbox: ["sandbox-exec", "-p", profile], env: launchEnv, watched: [], ...rulesNote(policy) };
  }
  // bwrap binds only what exists: a missing protected path is watched, and set aside if the command
  // creates it (set_aside_created.ts).
  policy.readOnly = present;
  return {
    sandbox: ["bwrap", ...bwrapArguments(policy, cwd)],
    env: launchEnv,
    watched: absent,
    ...rulesNote(policy),
  };
}

function rulesNote(policy: CommandSandboxPolicy): { rulesNote?: string } {
  const notes = policy.notes ?? [];
  return notes.length === 0 ? {} : {
    rulesNote: `Note: the OS sandbox lets this session's commands write only where its rules allow: ${
      notes.join("; ")
    } (docs/reference/permissions.md "Rules narrow the OS layers").`,
  };
}

/**
 * The writable folders of `policy` but those a rule named that are symlinks: bound, a link would make
 * its target writable (`docs -> ~/.ssh` in the repository), which the rules never allowed.
 */
async function withoutLinks(ctx: ToolContext, policy: CommandSandboxPolicy): Promise<string[]> {
  const named = policy.named ?? [];
  if (named.length === 0) return policy.writable;
  const real = await Promise.all(named.map((p) => ctx.ports.fs.realPath(p).catch(() => p)));
  return policy.writable.filter((p) => !named.some((n, i) => n === p && real[i] !== p));
}

/**
 * The main repository's git folders a commit in the worktree at `root` writes: its own
 * `.git/worktrees/<name>` and the shared `objects`, `refs` and `logs` (never `hooks` or `config`).
 * Empty when `root/.git` is not a worktree's pointer file.
 */
async function worktreeGitFolders(ctx: ToolContext, root: string): Promise<string[]> {
  const pointer = await ctx.ports.fs.readTextIfExists(`${root}/.git`).catch(() => null);
  const match = pointer?.match(/^gitdir: (.+)$/m);
  if (match === undefined || match === null) return [];
  const gitDir = resolve(root, match[1]!.trim());
  const common = dirname(dirname(gitDir));
  if (!gitDir.startsWith(`${common}/worktrees/`)) return [gitDir];
  return [gitDir, `${common}/objects`, `${common}/refs`, `${common}/logs`];
}

async function kindOf(ctx: ToolContext, path: string): Promise<"file" | "folder" | undefined> {
  const info = await ctx.ports.fs.stat(path).catch(() => null);
  return info === null ? undefined : info.isFile ? "file" : "folder";
}

/** The paths of `paths` that exist (and may be looked at: a Worker child may not stat everything). */
async function existing(ctx: ToolContext, paths: readonly string[]): Promise<string[]> {
  const kinds = await Promise.all(paths.map((p) => kindOf(ctx, p)));
  return [...new Set(paths.filter((_, i) => kinds[i] !== undefined))];
}
