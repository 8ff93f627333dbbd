// Crash-test support: run `blade -p` in its own process group with a script, SIGKILL the whole group
// at a chosen moment, and read what survived — transcripts (complete lines, torn tails), sidecars
// (parseable or torn), completion receipts in the parent's transcript. Used by tests/e2e_crash_test.ts.

import type { SidecarRecord } from "../../lib/store/schema.ts";
import { projectFolderName } from "../../lib/config/storage.ts";
import { SidecarRecordSchema } from "../../lib/store/schema.ts";
import { parseTranscript } from "../../lib/session/transcript.ts";
import type { BladeProcess, BladeSandbox } from "./blade.ts";

/**
 * The seed of a test's random kill moments: BLADE_KILL_SEED when set (to replay a run), else a fresh
 * one. Tests put it in their name, so every run prints it and a failure can be replayed.
 */
export function killSeed(): number {
  const given = Deno.env.get("BLADE_KILL_SEED");
  if (given !== undefined && given !== "") return Number(given) >>> 0;
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}

/** mulberry32: a small seeded generator of numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function writeScript(sandbox: BladeSandbox, name: string, script: unknown): Promise<string> {
  const path = `${sandbox.root}/${name}.json`;
  await Deno.writeTextFile(path, JSON.stringify(script, null, 2));
  return path;
}

export function scriptedArgs(script: string, prompt: string, extra: string[] = []): string[] {
  return ["-p", prompt, "--provider", "scripted", "--script", script, "--output-format", "json", ...extra];
}

/**
 * SIGKILLs Blade's whole process group (Blade, its Workers, its commands) and waits for it to end.
 * Fails unless the kill is what ended Blade: a run that had already exited (say, main() returning at
 * start-up) must not pass for a killed one.
 */
export async function killGroup(blade: BladeProcess): Promise<void> {
  try {
    Deno.kill(-blade.pid, "SIGKILL");
  } catch { /* already gone: the check below says so */ }
  const result = await blade.result;
  if (await blade.signal !== "SIGKILL") {
    throw new Error(
      `the kill did not hit a live Blade: it had exited with code ${result.code}\n${result.stdout}\n${result.stderr}`,
    );
  }
}

export function projectDir(sandbox: BladeSandbox): string {
  return `${sandbox.storage}/projects/${projectFolderName(sandbox.workspace)}`;
}

/** Every transcript of the workspace: file name → text. */
export async function transcripts(sandbox: BladeSandbox): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    for await (const e of Deno.readDir(projectDir(sandbox))) {
      if (e.isFile && e.name.endsWith(".jsonl")) {
        out.set(e.name, await Deno.readTextFile(`${projectDir(sandbox)}/${e.name}`));
      }
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return out;
}

/** The id of the top-level session of the workspace, when one was created. */
export async function mainSessionId(sandbox: BladeSandbox): Promise<string | undefined> {
  for (const name of (await transcripts(sandbox)).keys()) {
    if (name.startsWith("session-")) return name.slice(0, -".jsonl".length);
  }
  return undefined;
}

/** Sidecar files: parsed records and the names of files that are not a valid record (torn). */
export async function sidecarFiles(
  sandbox: BladeSandbox,
): Promise<{ records: SidecarRecord[]; torn: string[] }> {
  const dir = `${sandbox.storage}/agents/sessions`;
  const records: SidecarRecord[] = [];
  const torn: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.endsWith(".json") || e.name.startsWith(".")) continue;
      const text = await Deno.readTextFile(`${dir}/${e.name}`);
      try {
        const parsed = SidecarRecordSchema.safeParse(JSON.parse(text));
        if (parsed.success) records.push(JSON.parse(text) as SidecarRecord);
        else torn.push(e.name);
      } catch {
        torn.push(e.name);
      }
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return { records, torn };
}

/** Complete lines (each ended by a newline) of a transcript text: what a writer committed. */
export function committedLines(text: string): string[] {
  const lines = text.split("\n");
  lines.pop(); // the part after the last newline is not committed (empty, or a torn tail)
  return lines.filter((l) => l !== "");
}

/** Committed lines of `before` missing from the same file `after` (they must all still be there, in order). */
export function lostLines(before: Map<string, string>, after: Map<string, string>): number {
  let lost = 0;
  for (const [name, text] of before) {
    const was = committedLines(text);
    const now = committedLines(after.get(name) ?? "");
    let j = 0;
    for (const line of was) {
      while (j < now.length && now[j] !== line) j++;
      if (j === now.length) lost++;
      else j++;
    }
  }
  return lost;
}

/** Lines that do not parse, other than torn tails left by a kill (those are reported, and kept apart). */
export function badTranscriptLines(before: Map<string, string>, after: Map<string, string>): number {
  let bad = 0;
  for (const [name, text] of after) {
    const tornAtKill = (before.get(name) ?? "").split("\n").at(-1) ?? "";
    const read = parseTranscript(text);
    for (const d of read.diagnostics) {
      if (d.kind !== "invalid_line") continue;
      const line = text.split("\n")[d.line - 1] ?? "";
      if (line !== tornAtKill || tornAtKill === "") bad++;
    }
  }
  return bad;
}

/** How often each completion receipt (hidden message with an inbox id) is in the parent's transcript. */
export function receipts(parentText: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of parseTranscript(parentText).events) {
    if (e.type === "message_created" && e.data.inboxId !== undefined) {
      out.set(e.data.inboxId, (out.get(e.data.inboxId) ?? 0) + 1);
    }
  }
  return out;
}

/** Polls every 20 ms until `check` resolves true (real time: these tests drive real processes). */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What one kill left and what the restart made of it (tests/e2e_crash_test.ts, tests/faults/sigkill_test.ts). */
export interface KillFigures {
  restarts: number;
  childrenAtKill: number;
  runningAtKill: number;
  /** Committed transcript lines missing after the restart. */
  lost: number;
  tornSidecars: number;
  /** Transcript lines that do not parse, other than the torn tail the kill left. */
  badLines: number;
  duplicate: number;
  missing: number;
  stillRunning: number;
  tornTails: number;
  restartFailed: number;
}

export function noKillFigures(): KillFigures {
  return {
    restarts: 0,
    childrenAtKill: 0,
    runningAtKill: 0,
    lost: 0,
    tornSidecars: 0,
    badLines: 0,
    duplicate: 0,
    missing: 0,
    stillRunning: 0,
    tornTails: 0,
    restartFailed: 0,
  };
}

/** Adds `f` into `total`, field by field. */
export function addFigures<T extends object>(total: T, f: Partial<T>): void {
  for (const k of Object.keys(f) as (keyof T)[]) (total[k] as number) += f[k] as number;
}

/**
 * After Blade was killed: reads what survived, continues the session with `--resume` running the
 * `calm` script (no delays), and counts what was lost, torn, left running, missing or repeated.
 */
export async function restartAfterKill(sandbox: BladeSandbox, calm: unknown): Promise<KillFigures> {
  const figures = noKillFigures();
  const before = await transcripts(sandbox);
  for (const text of before.values()) if (text !== "" && !text.endsWith("\n")) figures.tornTails++;
  const atKill = await sidecarFiles(sandbox);
  figures.tornSidecars += atKill.torn.length;
  figures.childrenAtKill = atKill.records.length;
  figures.runningAtKill = atKill.records.filter((r) => r.status === "running").length;
  const session = await mainSessionId(sandbox);
  if (session === undefined) return figures; // killed before anything was written
  figures.restarts = 1;
  const script = await writeScript(sandbox, "calm", calm);
  const run = await sandbox.run(scriptedArgs(script, "Carry on.", ["--resume", session]));
  if (run.code !== 0) figures.restartFailed++;
  const after = await transcripts(sandbox);
  figures.lost += lostLines(before, after);
  figures.badLines += badTranscriptLines(before, after);
  const { records, torn } = await sidecarFiles(sandbox);
  figures.tornSidecars += torn.length;
  figures.stillRunning += records.filter((r) => r.status === "running").length;
  const got = receipts(after.get(`${session}.jsonl`) ?? "");
  for (const r of records.filter((r) => r.background)) {
    const n = got.get(`background-subagent-completion:${r.id}`) ?? 0;
    if (n === 0) figures.missing++;
    if (n > 1) figures.duplicate += n - 1;
  }
  return figures;
}

/** The figures that must be zero whatever the kill: what was lost, torn, repeated or left behind. */
export function harm(f: KillFigures) {
  const { lost, tornSidecars, badLines, duplicate, missing, stillRunning, restartFailed } = f;
  return { lost, tornSidecars, badLines, duplicate, missing, stillRunning, restartFailed };
}

/**
 * A scripted `Task` call of a general-purpose child (description "fg/bg child"). Its id is Blade's
 * (the model never names it): a test finds it by the description (`childId`).
 */
export function taskCall(prompt: string, background: boolean) {
  return {
    name: "Task",
    input: {
      subagent_type: "general-purpose",
      description: background ? "bg child" : "fg child",
      prompt,
      ...(background ? { run_in_background: true } : {}),
    },
  };
}

/** The id Blade gave the child of this description ("" while it has no sidecar). */
export async function childId(sandbox: BladeSandbox, description: string): Promise<string> {
  return (await sidecarFiles(sandbox)).records.find((r) => r.description === description)?.id ?? "";
}
