// The hostile-input suite: one folder per case under tests/fixtures/hostile/<case>/ (see its README.md).
// Each case lays out files an attacker or an accident controls — agent files, sidecars, inboxes,
// transcripts, a script whose "model" sends bad Task inputs — in a fresh workspace, storage root and
// HOME, then runs one `blade` command line in this process (runCli with real files and processes) and
// checks: the exit code, the message on stdout/stderr, that nothing looks like a stack trace or an
// internal error, that no raw control character reaches the output, that it ended in time (no hang),
// and that every file the case laid out is still there, byte for byte (nothing lost or rewritten).
// Big inputs (10 MB bodies, 1 GB sparse sidecars) are generated at test time, never committed.

import assert from "node:assert/strict";
import { projectFolderName } from "../lib/config/storage.ts";
import { runCli } from "../lib/cli/main.ts";
import { captureIo } from "../lib/cli/io.ts";
import { fakeEnv } from "../lib/testing/fakes.ts";
import { realClock } from "../lib/sys/clock.ts";
import { realFs } from "../lib/sys/fs.ts";
import { realIds } from "../lib/sys/ids.ts";
import { realProcess } from "../lib/sys/process.ts";
import type { Ports } from "../lib/sys/mod.ts";
import { runBlade } from "./support/blade.ts";

const FIXTURES = decodeURIComponent(new URL("./fixtures/hostile/", import.meta.url).pathname);
/** A hang is a failure: no case may take longer than this. */
const CASE_LIMIT_MS = 30_000;

interface Generated {
  /** Path below the case's root (`ws/…`, `storage/…`, `home/…`); placeholders allowed. */
  path: string;
  /** Text at the start of the file. */
  head?: string;
  /** Repeated after `head` until the file holds `bytes` bytes (then `tail`). */
  repeat?: string;
  bytes?: number;
  /** A sparse file of this many bytes after `head` (nothing is written in between). */
  sparse?: number;
  tail?: string;
  /** Bytes of a seeded pseudo-random generator (binary garbage), after `head`. */
  random?: number;
}

interface HostileCase {
  /** What the hostile input is and what Blade must do with it. */
  about: string;
  /** The command line after `blade`; placeholders `{{ws}}`, `{{storage}}`, `{{root}}`, `{{case}}` (the case's folder), `{{text:<file>}}`. */
  argv: string[];
  /** Expected exit code. 0 only where the input is reported as a diagnostic and the command still works. */
  code: 0 | 1 | 2;
  /** Regular expressions the output must match (stdout, stderr, either). */
  stdout?: string;
  stderr?: string;
  output?: string;
  /** Regular expressions the output must not match. */
  absent?: string[];
  env?: Record<string, string>;
  generate?: Generated[];
  symlinks?: { path: string; target: string }[];
  fifos?: string[];
  /** Laid-out files the command may change (e.g. an inbox it consumes); all others must stay identical. */
  changes?: string[];
  /** Run as a real subprocess (`deno run` with the blade task's flags) instead of in this process. */
  subprocess?: boolean;
}

const STACK = /^\s+at .+:\d+:\d+\)?$|internal error|Uncaught|this is a bug in Blade/im;
// Raw control characters (ESC, NUL, CR, …) never reach a terminal; tab and newline are fine.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function escapeProject(ws: string): string {
  return projectFolderName(ws);
}

interface World {
  root: string;
  ws: string;
  storage: string;
  home: string;
  fill(text: string): string;
}

async function world(caseDir: string): Promise<World> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-hostile-" }));
  const ws = `${root}/ws`;
  const storage = `${root}/storage`;
  const home = `${root}/home`;
  for (const dir of [ws, storage, home]) await Deno.mkdir(dir, { recursive: true });
  const fill = (text: string): string =>
    text
      .replaceAll("{{ws}}", ws)
      .replaceAll("{{storage}}", storage)
      .replaceAll("{{root}}", root)
      .replaceAll("{{case}}", caseDir)
      .replaceAll("{{project}}", escapeProject(ws))
      .replace(/\{\{text:([^}]+)\}\}/g, (_, file: string) => Deno.readTextFileSync(`${caseDir}/${file}`));
  return { root, ws, storage, home, fill };
}

/** Copies `from` (the case's ws/, storage/, home/ trees) into `to`, filling placeholders in names and text. */
async function layOut(from: string, to: string, w: World, laid: string[]): Promise<void> {
  for await (const entry of Deno.readDir(from)) {
    const source = `${from}/${entry.name}`;
    const target = `${to}/${w.fill(entry.name)}`;
    if (entry.isDirectory) {
      await Deno.mkdir(target, { recursive: true });
      await layOut(source, target, w, laid);
    } else {
      const bytes = await Deno.readFile(source);
      const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
      const filled = text.includes("{{") ? new TextEncoder().encode(w.fill(text)) : bytes;
      await Deno.writeFile(target, filled);
      laid.push(target);
    }
  }
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s & 0xff;
  };
}

async function generate(g: Generated, w: World): Promise<string> {
  const path = `${w.root}/${w.fill(g.path)}`;
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    const enc = new TextEncoder();
    let written = 0;
    const put = async (bytes: Uint8Array) => {
      for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
      written += bytes.length;
    };
    if (g.head !== undefined) await put(enc.encode(w.fill(g.head)));
    if (g.repeat !== undefined && g.bytes !== undefined) {
      const unit = enc.encode(g.repeat);
      const units = Math.max(1, Math.floor((1 << 20) / unit.length));
      const chunk = new Uint8Array(units * unit.length);
      for (let i = 0; i < units; i++) chunk.set(unit, i * unit.length);
      while (written + chunk.length <= g.bytes) await put(chunk);
      const rest = Math.floor((g.bytes - written) / unit.length) * unit.length;
      if (rest > 0) await put(chunk.subarray(0, rest));
    }
    if (g.random !== undefined) {
      const next = seeded(g.random);
      await put(Uint8Array.from({ length: g.random }, next));
    }
    if (g.sparse !== undefined) {
      await file.seek(g.sparse, Deno.SeekMode.Current);
      written += g.sparse;
    }
    if (g.tail !== undefined) await put(enc.encode(w.fill(g.tail)));
    else if (g.sparse !== undefined) await file.truncate(written);
  } finally {
    file.close();
  }
  return path;
}

/** What identifies a file's content: bytes for small files, size + mtime for generated big ones. */
async function fingerprint(path: string): Promise<string> {
  const info = await Deno.lstat(path);
  if (info.isSymlink) return `link:${await Deno.readLink(path)}`;
  if (!info.isFile) return `kind:${info.isDirectory ? "dir" : "other"}`;
  if (info.size > 4 << 20) return `big:${info.size}:${info.mtime?.getTime()}`;
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return `sha:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function runCase(
  name: string,
  c: HostileCase,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const caseDir = `${FIXTURES}${name}`;
  const w = await world(caseDir);
  try {
    const laid: string[] = [];
    for (const part of ["ws", "storage", "home"] as const) {
      if (await exists(`${caseDir}/${part}`)) await layOut(`${caseDir}/${part}`, w[part], w, laid);
    }
    for (const g of c.generate ?? []) laid.push(await generate(g, w));
    for (const s of c.symlinks ?? []) {
      const path = `${w.root}/${w.fill(s.path)}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.symlink(w.fill(s.target), path);
      laid.push(path);
    }
    for (const f of c.fifos ?? []) {
      const path = `${w.root}/${w.fill(f)}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      const made = await new Deno.Command("mkfifo", { args: [path] }).output();
      assert.ok(made.success, `mkfifo ${path}`);
      laid.push(path);
    }
    const before = new Map<string, string>();
    for (const path of laid) before.set(path, await fingerprint(path));
    const argv = c.argv.map(w.fill);
    const env: Record<string, string> = {
      HOME: w.home,
      BLADE_STORAGE_ROOT: w.storage,
      BLADE_TRUST_WORKSPACE: "1",
      BLADE_CHILD_SANDBOX: "none",
      NO_COLOR: "1",
      ...Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, w.fill(v)])),
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`hang: no answer within ${CASE_LIMIT_MS} ms`)),
        CASE_LIMIT_MS,
      );
    });
    let result: { code: number; stdout: string; stderr: string };
    try {
      result = await Promise.race([
        c.subprocess === true ? runBlade(argv, { cwd: w.ws, env }) : inProcess(argv, env, w),
        limit,
      ]);
    } finally {
      clearTimeout(timer);
    }
    const changes = new Set((c.changes ?? []).map((p) => `${w.root}/${w.fill(p)}`));
    for (const [path, print] of before) {
      if (changes.has(path)) continue;
      assert.ok(await exists(path), `${path.slice(w.root.length)} was removed`);
      assert.equal(await fingerprint(path), print, `${path.slice(w.root.length)} was changed`);
    }
    const clean = (s: string) => s.replaceAll(w.root, "<root>");
    return { code: result.code, stdout: clean(result.stdout), stderr: clean(result.stderr) };
  } finally {
    await Deno.remove(w.root, { recursive: true }).catch(() => {});
  }
}

async function inProcess(argv: string[], env: Record<string, string>, w: World) {
  const ports: Ports = {
    fs: realFs(),
    clock: realClock(),
    process: realProcess(),
    ids: realIds(),
    env: fakeEnv({ ...env, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" }, { cwd: w.ws, home: w.home }),
  };
  const io = captureIo();
  const code = await runCli(argv, ports, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** A case's regular expression; a leading `(?i)` makes it ignore case. */
function pattern(source: string): RegExp {
  return source.startsWith("(?i)") ? new RegExp(source.slice(4), "i") : new RegExp(source);
}

const names: string[] = [];
for await (const entry of Deno.readDir(FIXTURES)) if (entry.isDirectory) names.push(entry.name);
names.sort();

Deno.test("hostile inputs: at least 100 cases, each a folder with a case.json", async () => {
  assert.ok(names.length >= 100, `only ${names.length} hostile cases`);
  for (const name of names) assert.ok(await exists(`${FIXTURES}${name}/case.json`), `${name}/case.json`);
});

for (const name of names) {
  const c = JSON.parse(Deno.readTextFileSync(`${FIXTURES}${name}/case.json`)) as HostileCase;
  Deno.test(`hostile ${name}: ${c.about}`, async () => {
    const r = await runCase(name, c);
    const shown = `exit ${r.code}\n--- stdout\n${r.stdout.slice(0, 3000)}\n--- stderr\n${
      r.stderr.slice(0, 3000)
    }`;
    assert.equal(r.code, c.code, shown);
    assert.doesNotMatch(r.stdout + r.stderr, STACK, shown);
    assert.doesNotMatch(r.stdout + r.stderr, CONTROL, `raw control character in the output\n${shown}`);
    if (c.stdout !== undefined) assert.match(r.stdout, pattern(c.stdout), shown);
    if (c.stderr !== undefined) assert.match(r.stderr, pattern(c.stderr), shown);
    if (c.output !== undefined) assert.match(r.stdout + r.stderr, pattern(c.output), shown);
    for (const a of c.absent ?? []) assert.doesNotMatch(r.stdout + r.stderr, pattern(a), shown);
    // A case reported with exit 0 must still have said something about the bad input.
    if (c.code === 0) {
      assert.ok(c.stdout ?? c.stderr ?? c.output, `${name}: exit 0 needs an expected diagnostic`);
    }
    assert.equal(
      Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"),
      false,
      "prototype polluted",
    );
  });
}
