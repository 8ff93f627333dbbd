// Owns the path rules every tool shares (docs/reference/permissions.md, docs/reference/sessions.md, docs/reference/worktrees.md): relative paths resolve against the
// workspace root, symlinks are resolved by us (Deno checks the path as given, not its target), reads
// may go anywhere, writes only inside the workspace, an `--add-dir` folder or Blade's storage root, and an untrusted
// workspace may write only into the storage root. Does not read or write file contents.

import { relative, resolve, sep } from "../path.ts";
import type { FileInfo } from "../sys/fs.ts";
import { fsErrorCode, isNotCapable } from "../sys/errors.ts";
import type { ToolContext } from "./tool.ts";
import { canonicalPath, isInside } from "./real_path.ts";

export { canonicalPath, isInside };
import { worktreeWriteRefusal } from "./worktree_guard.ts";

/**
 * Blade's own state in the storage root, which no tool may write even in a trusted workspace: it
 * grants trust, loads agents, or is another session's durable record. A worktree is writable only
 * by the session whose workspace it is.
 */
const PROTECTED_STORAGE: Readonly<Record<string, string>> = {
  "trust.json": "Blade's list of trusted workspaces",
  "config.json": "Blade's user configuration",
  "agents": "Blade's agent definitions and run records",
  "projects": "Blade's session transcripts",
  "worktrees": "another session's worktree",
};

/** Where an allowed write lands, which decides the modes of new files and folders. */
export type WriteArea = "workspace" | "storage";

export type WriteTarget =
  | { ok: true; path: string; area: WriteArea }
  | { ok: false; message: string };

/** The absolute, lexically normalised form of a tool's path argument (`~` is the user's home). */
export function resolveToolPath(ctx: Pick<ToolContext, "workspaceRoot" | "ports">, path: string): string {
  const home = ctx.ports.env.home();
  if (home !== undefined && (path === "~" || path.startsWith("~/"))) return resolve(home, path.slice(2));
  return resolve(ctx.workspaceRoot, path);
}

function describeResolved(given: string, real: string): string {
  return given === real ? given : `${given} (resolves to ${real})`;
}

/**
 * Resolves a write target and applies the write rules. The returned path is the canonical one: do
 * the I/O on it, so what was checked is what gets written.
 */
/**
 * The real path a read acts on: symlinks resolved by us, because Deno checks the path as given. A
 * child whose grant does not cover the target is then refused by Deno (`NotCapable`), so a workspace
 * symlink to /etc reads nothing. Falls back to the lexical path when it cannot be resolved.
 */
export async function resolveReadPath(
  ctx: Pick<ToolContext, "workspaceRoot" | "ports">,
  path: string,
): Promise<string> {
  const given = resolveToolPath(ctx, path);
  return await canonicalPath(ctx.ports.fs, given).catch(() => given);
}

export async function resolveWritePath(ctx: ToolContext, path: string): Promise<WriteTarget> {
  const given = resolveToolPath(ctx, path);
  if (ctx.worktree !== undefined) {
    const refusal = await worktreeWriteRefusal(ctx.ports.fs, ctx.worktree, given);
    if (refusal !== undefined) return { ok: false, message: refusal };
  }
  let real: string;
  let workspace: string;
  let storage: string;
  try {
    real = await canonicalPath(ctx.ports.fs, given);
    workspace = await canonicalPath(ctx.ports.fs, ctx.workspaceRoot);
    // A child may not read the storage root itself (only its own project folder), so it cannot
    // resolve it; the root it was given is already canonical.
    storage = await canonicalPath(ctx.ports.fs, ctx.storageRoot).catch((e) => {
      if (isNotCapable(e) || isNotCapable((e as Error).cause)) return resolve(ctx.storageRoot);
      throw e;
    });
  } catch (e) {
    return { ok: false, message: `Cannot write ${given}: ${e instanceof Error ? e.message : String(e)}.` };
  }
  const shown = describeResolved(given, real);
  const inStorage = isInside(real, storage);
  const inWorkspace = isInside(real, workspace);
  // --add-dir folders (canonical already) extend the workspace; a session in a worktree stays in it.
  const added = ctx.worktree === undefined
    ? (ctx.additionalDirs ?? []).find((d) => isInside(real, d))
    : undefined;
  const top = inStorage ? relative(storage, real).split(sep)[0] ?? "" : "";
  const owned = top === "worktrees" && inWorkspace;
  if (Object.hasOwn(PROTECTED_STORAGE, top) && !owned) {
    return {
      ok: false,
      message: `Cannot write ${shown}: it is part of ${PROTECTED_STORAGE[top]} in the storage root ` +
        `(${storage}), which tools may not change.`,
    };
  }
  if (inStorage) return { ok: true, path: real, area: "storage" };
  if (!ctx.trusted) {
    return {
      ok: false,
      message: `Cannot write ${shown}: the workspace ${workspace} is not trusted, so writes are only ` +
        `allowed inside Blade's storage root (${storage}). Run \`blade trust\` in the workspace (or pass ` +
        `--trust-workspace) to allow it.`,
    };
  }
  if (inWorkspace || added !== undefined) return { ok: true, path: real, area: "workspace" };
  const dirs = ctx.worktree === undefined && (ctx.additionalDirs ?? []).length > 0
    ? `, the --add-dir folders (${ctx.additionalDirs!.join(", ")})`
    : "";
  return {
    ok: false,
    message: `Cannot write ${shown}: it is outside the workspace ${workspace}. Tools may only write ` +
      `inside the workspace${dirs} or Blade's storage root${dirs === "" ? " (--add-dir adds folders)" : ""}.`,
  };
}

/** The refusal an execute tool returns in an untrusted workspace, or undefined when trusted. */
export function untrustedExecution(ctx: ToolContext, tool: string): string | undefined {
  if (ctx.trusted) return undefined;
  return `${tool} is disabled because the workspace ${ctx.workspaceRoot} is not trusted. ` +
    `Run \`blade trust\` in the workspace (or pass --trust-workspace) to allow it.`;
}

/**
 * A message for a path the session's Deno permissions do not cover (a subagent runs in a Worker with
 * a narrower grant), or undefined for any other error. Deno's own text suggests a flag nobody can pass.
 */
export function notAccessible(error: unknown, path: string): string | undefined {
  if (!isNotCapable(error)) return undefined;
  const deno = error.message.replace(/, run again with .*$/s, "");
  return `${path} is outside this agent's access: it runs with Deno permissions limited to its workspace ` +
    `and Blade's storage (NotCapable: ${deno}).`;
}

/**
 * The refusal of a write Deno did not allow (a child's grant is narrower than the tool's path rules
 * thought), phrased like a read refusal, never Deno's "run again with --allow-write".
 */
export function notWritable(error: unknown, path: string, workspaceRoot: string): string | undefined {
  if (!isNotCapable(error)) return undefined;
  return `${path} is outside this agent's write access (workspace ${workspaceRoot}): its Deno permissions ` +
    `let it write only its workspace and Blade's session records (NotCapable).`;
}

/**
 * Why a file operation failed, for a tool's answer: the OS text and code without Deno's operation
 * and path (`Permission denied (EACCES)`), or NotCapable's own message.
 */
export function fsReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const text = message.replace(/ \(os error \d+\)/, "").replace(/: [a-z_]+ '.*$/s, "");
  const code = fsErrorCode(error);
  return code === undefined || code === "NOT_CAPABLE" || text.includes(code) ? text : `${text} (${code})`;
}

/** stat() that tells a refused path and one that cannot be read (EACCES, ELOOP, …) apart from a missing one. */
export async function statOrRefusal(
  fs: ToolContext["ports"]["fs"],
  path: string,
): Promise<{ info: FileInfo | null } | { refused: string }> {
  try {
    return { info: await fs.stat(path) };
  } catch (e) {
    // stat answers null for a missing path: whatever it throws is a failure to say, never "absent".
    return { refused: notAccessible(e, path) ?? `Cannot read ${path}: ${fsReason(e)}.` };
  }
}
