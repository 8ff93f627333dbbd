// Owns running ripgrep for Grep the way Claude Code does (docs/reference/search.md, "Grep"): the command
// line (`--hidden --no-follow`, version control folders excluded, `--max-filesize`, the mode's output
// flags, `-e PATTERN -- ROOT` so neither can pass for an option, no config file, an empty environment),
// run through the Process port with the time limit as its timeout, and its output read back into the
// findings the built-in search gives (grep_query.ts). Does not decide paths, permissions or the text.

import type { Process } from "../../sys/process.ts";
import { dirname } from "../../path.ts";
import {
  type ContentLine,
  type FileFinding,
  GREP_MAX_FILE_BYTES,
  type GrepFindings,
  type GrepQuery,
  GrepRefusal,
  VCS_DIRS,
} from "./grep_query.ts";

/** Output read from rg before it is stopped (the findings then say the search was cut short). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** rg's arguments for `query`. */
export function ripgrepArgs(query: GrepQuery): string[] {
  const args = ["--no-config", "--hidden", "--no-follow", "--max-filesize", `${GREP_MAX_FILE_BYTES}`];
  if (query.multiline) args.push("-U", "--multiline-dotall");
  if (query.ignoreCase) args.push("-i");
  if (query.mode === "files_with_matches") args.push("-l", "--null");
  else if (query.mode === "count") args.push("-c", "-H", "--null");
  else {
    args.push("-n", "-H", "--null", "--no-heading");
    if (query.onlyMatching) args.push("-o");
    else {
      if (query.before > 0) args.push("-B", String(query.before));
      if (query.after > 0) args.push("-A", String(query.after));
    }
  }
  if (query.type !== undefined) args.push("--type", query.type);
  for (const glob of query.globs) args.push("--glob", glob);
  // Last, so that no glob of the caller's brings them back (rg: a later glob wins).
  for (const dir of VCS_DIRS) args.push("--glob", `!${dir}`);
  args.push("-e", query.pattern, "--", query.root);
  return args;
}

const BINARY = /^(.*): binary file matches \(found "\\0" byte around offset (\d+)\)$/;

/** Content mode's output lines (`path\0N:text`, `path\0N-text`, `--`, binary notices) as findings. */
function contentFindings(stdout: string): FileFinding[] {
  const files = new Map<string, FileFinding>();
  const file = (path: string) => {
    let f = files.get(path);
    if (f === undefined) files.set(path, f = { path, count: 0, lines: [] });
    return f;
  };
  for (const raw of stdout.split("\n")) {
    if (raw === "" || raw === "--") continue;
    const nul = raw.indexOf("\0");
    if (nul < 0) {
      const binary = BINARY.exec(raw);
      if (binary !== null) {
        const f = file(binary[1]!);
        f.binaryOffset = Number(binary[2]);
        f.count = Math.max(f.count, 1);
      }
      continue;
    }
    const m = /^(\d+)([:-])/.exec(raw.slice(nul + 1));
    if (m === null) continue;
    const text = raw.slice(nul + 1 + m[0].length);
    const line: ContentLine = {
      line: Number(m[1]),
      match: m[2] === ":",
      text: text.endsWith("\r") ? text.slice(0, -1) : text,
    };
    const f = file(raw.slice(0, nul));
    f.lines!.push(line);
    if (line.match) f.count++;
  }
  return [...files.values()];
}

/** What rg said on stderr about paths it could not read (`rg: <path>: <reason>`). */
function unreadable(stderr: string): { path: string; reason: string }[] {
  const out: { path: string; reason: string }[] = [];
  for (const line of stderr.split("\n")) {
    const m = /^rg: (.*): (.*\(os error \d+\))$/.exec(line);
    if (m !== null) out.push({ path: m[1]!, reason: m[2]! });
  }
  return out;
}

/**
 * rg's refusal of the search, in the built-in search's words: a regex parse error's reason (rg prints
 * the pattern and a caret first), or its one-line message (an unknown type); undefined for errors about
 * paths it could not read.
 */
function refusalOf(stderr: string): string | undefined {
  const lines = stderr.split("\n").map((l) => l.trim()).filter((l) =>
    l !== "" && !/\(os error \d+\)$/.test(l)
  );
  if (lines.length === 0) return undefined;
  if (lines[0] === "regex parse error:") {
    const reason = lines.find((l) => l.startsWith("error: "));
    return `regex parse error: ${
      reason === undefined ? lines.slice(1).join(" ") : reason.slice("error: ".length)
    }`;
  }
  return lines[0]!.replace(/^rg: /, "");
}

/** Runs rg (`rg` is its path) for `query`. Throws GrepRefusal with rg's own reason for a bad pattern or type. */
export async function ripgrepGrep(
  process: Pick<Process, "run">,
  rg: string,
  query: GrepQuery,
): Promise<GrepFindings> {
  // From the root (a file's folder): rg anchors a glob with a slash at its working folder.
  const cwd = query.rootIsFile ? dirname(query.root) : query.root;
  // Past its deadline already (a slow start): no search is started, and the answer says it stopped.
  const left = query.deadline - query.now();
  if (left <= 0) return { files: [], timedOut: true, unreadable: [] };
  const result = await process.run(rg, ripgrepArgs(query), {
    cwd,
    env: {},
    clearEnv: true,
    timeoutMs: left,
    signal: query.signal,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
  const stdout = result.stdout;
  if (result.code === 2 && stdout === "" && !result.timedOut && !result.aborted) {
    const refusal = refusalOf(result.stderr);
    if (refusal !== undefined) throw new GrepRefusal(refusal);
  }
  let files: FileFinding[];
  if (query.mode === "content") files = contentFindings(stdout);
  else {
    files = [];
    if (query.mode === "files_with_matches") {
      for (const path of stdout.split("\0")) if (path !== "") files.push({ path, count: 1 });
    } else {
      for (const line of stdout.split("\n")) {
        const nul = line.lastIndexOf("\0");
        if (nul > 0) files.push({ path: line.slice(0, nul), count: Number(line.slice(nul + 1)) });
      }
    }
  }
  // A cut output ends in a partial entry: it is dropped with the rest the search did not finish.
  if (result.truncated && files.length > 0 && query.mode !== "content") files.pop();
  return {
    files,
    timedOut: result.timedOut || result.aborted || result.truncated,
    unreadable: unreadable(result.stderr),
  };
}
