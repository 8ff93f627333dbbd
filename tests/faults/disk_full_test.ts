// Fault suite, disk: the disk fills (ENOSPC), turns read-only (EROFS) or refuses permission (EACCES) at
// each kind of write a delegation run makes — the session lease, the parent's and a child's transcript
// append (torn mid-line), a background child's terminal sidecar, the parent's inbox. The real CLI runs
// as a process over FaultFs (tests/support/faulty_main.ts, lib/testing/fault_fs.ts: the real Fs, with
// the chosen writes failing as the OS fails them; children in that thread). After each: one clear line naming the file (never a stack or "internal
// error"), exit 1 and is_error when a child's end or notice was lost, no torn file, every line
// committed before the fault still there, and the next run (disk freed, --resume) works.
// A real full tmpfs is in disk_tmpfs_test.ts.

import assert from "node:assert/strict";
import {
  type BladeResult,
  type BladeSandbox,
  bladeSandbox,
  parseJsonResult,
  SOURCES_ONLY,
} from "../support/blade.ts";
import {
  childId,
  lostLines,
  projectDir,
  receipts,
  scriptedArgs,
  sidecarFiles,
  taskCall,
  transcripts,
  writeScript,
} from "../support/crash.ts";
import type { FaultCode, FaultOp } from "../../lib/testing/fault_fs.ts";
import { parseTranscript } from "../../lib/session/transcript.ts";
import { printSummary } from "./summary.ts";

/** A child's id, as a pattern: ids are Blade's, so a fault aimed at one child's files runs with only that child. */
const ID = "agent-[\\w-]{21}";
const FG = taskCall("Foreground: answer at once.", false);
const BG = taskCall("Background: answer.", true);

/** A parent that delegates to its children (a foreground and a background one), then waits for notices. */
function scriptOf(children: "both" | "fg" | "bg" = "both") {
  return {
    agents: {
      main: [{
        repeat_last: true,
        turns: [
          { tool_calls: children === "both" ? [FG, BG] : children === "fg" ? [FG] : [BG] },
          { text: "main waits" },
          { text: "parent done" },
        ],
      }],
      "general-purpose": [{ repeat_last: true, turns: [{ text: "child answer" }] }],
    },
  };
}

interface Case {
  name: string;
  kind: "lease" | "transcript" | "sidecar" | "inbox";
  /** The children the parent delegates to (default both): one alone when the fault names a child's file. */
  children?: "fg" | "bg";
  /** As BLADE_FAULT takes it (tests/support/faulty_main.ts): `path` is a regular expression. */
  fault: { op: FaultOp; path: string; code: FaultCode; after?: number; tornBytes?: number };
  /** What the failed run must say: the code of its error object and a pattern of its message. */
  code: string;
  message: RegExp;
}

const CASES: Case[] = [
  {
    name: "the session lease cannot be written (ENOSPC)",
    kind: "lease",
    fault: {
      op: "writeText",
      path: "/\\.locks/[0-9a-f]{64}\\.lock$",
      code: "ENOSPC",
      tornBytes: 5,
    },
    code: "storage_write_failed",
    message: /^Could not write \S+\/\.locks\/[0-9a-f]{64}\.lock: the disk is full \(ENOSPC\)\.$/,
  },
  {
    name: "the parent's transcript append is cut mid-line (EROFS)",
    kind: "transcript",
    fault: {
      op: "append",
      path: "/session-[^/]+\\.jsonl$",
      after: 3,
      code: "EROFS",
      tornBytes: 40,
    },
    code: "storage_write_failed",
    message: /^Could not write \S+\/session-[^/]+\.jsonl: it is on a read-only file system \(EROFS\)\.$/,
  },
  {
    name: "a child's transcript append is cut mid-line (ENOSPC)",
    kind: "transcript",
    children: "fg",
    fault: { op: "append", path: `/${ID}\\.jsonl$`, after: 1, code: "ENOSPC", tornBytes: 40 },
    // The child fails with the reason (its failed end is committed); the run fails and names it.
    code: "child_write_failed",
    message: new RegExp(
      `^The run of (${ID}) stopped: Could not write \\S+/\\1\\.jsonl: the disk is full \\(ENOSPC\\)\\.`,
    ),
  },
  {
    name: "a child's first sidecar cannot be written (ENOSPC): it never starts",
    kind: "sidecar",
    children: "bg",
    fault: { op: "writeAtomic", path: `/agents/sessions/${ID}\\.json$`, code: "ENOSPC" },
    code: "sidecar_create_failed",
    message: new RegExp(
      `^The run of (${ID}) could not start: Could not write \\S+/\\1\\.json: the disk is full \\(ENOSPC\\)\\.`,
    ),
  },
  {
    name: "a background child's terminal sidecar cannot be committed (EACCES)",
    kind: "sidecar",
    children: "bg",
    fault: {
      op: "writeAtomic",
      path: `/agents/sessions/${ID}\\.json$`,
      after: 1,
      code: "EACCES",
    },
    code: "sidecar_commit_failed",
    message: new RegExp(
      `^The record of (${ID}) could not be updated to completed: Could not write \\S+/\\1\\.json: permission denied \\(EACCES\\)\\.`,
    ),
  },
  {
    name: "the parent's inbox cannot take the completion notice (ENOSPC)",
    kind: "inbox",
    fault: { op: "writeAtomic", path: "\\.inbox\\.json$", code: "ENOSPC" },
    code: "notice_dropped",
    message: new RegExp(
      `^The completion notice of ${ID} could not be written to its parent's inbox: Could not write \\S+\\.inbox\\.json: the disk is full \\(ENOSPC\\)\\.`,
    ),
  },
];

const FAULTY_MAIN = decodeURIComponent(new URL("../support/faulty_main.ts", import.meta.url).pathname);

/** The transcripts copied at the first injected failure (what was committed before it). */
async function snapshotAt(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    for await (const e of Deno.readDir(dir)) out.set(e.name, await Deno.readTextFile(`${dir}/${e.name}`));
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return out;
}

/** The delegation run under the fault: a real process whose Fs fails as `fault` says. */
async function runFaulty(sandbox: BladeSandbox, script: string, fault: Case["fault"]) {
  const report = `${sandbox.root}/fault-report.json`;
  const snapshot = `${sandbox.root}/at-fault`;
  const run = await sandbox.run(scriptedArgs(script, "Delegate both."), {
    entry: FAULTY_MAIN,
    env: {
      BLADE_FAULT: JSON.stringify(fault),
      BLADE_CHILD_SANDBOX: "none",
      BLADE_FAULT_WATCH: projectDir(sandbox),
      BLADE_FAULT_SNAPSHOT: snapshot,
      BLADE_FAULT_REPORT: report,
    },
  });
  const { hits } = JSON.parse(await Deno.readTextFile(report)) as { hits: unknown[] };
  return { run, hits: hits.length, atFault: await snapshotAt(snapshot) };
}

function assertClear(r: BladeResult, what: string): void {
  assert.doesNotMatch(
    r.stderr,
    /internal error|\n\s+at /,
    `${what}: no stack, no "internal error":\n${r.stderr}`,
  );
}

/** Files a fault may not leave behind: transcript lines that do not parse, sidecars that do not load. */
async function tornFiles(sandbox: BladeSandbox): Promise<string[]> {
  const torn: string[] = [];
  for (const [name, text] of await transcripts(sandbox)) {
    if (parseTranscript(text).diagnostics.length > 0) torn.push(name);
  }
  torn.push(...(await sidecarFiles(sandbox)).torn);
  return torn;
}

async function sessionOf(sandbox: BladeSandbox): Promise<string | undefined> {
  for (const name of (await transcripts(sandbox)).keys()) {
    if (name.startsWith("session-")) return name.slice(0, -".jsonl".length);
  }
  return undefined;
}

const tally = new Map<
  Case["kind"],
  { cases: number; clear: number; nextRunOk: number; torn: number; lost: number }
>();

for (const c of CASES) {
  Deno.test(`disk fault: ${c.name}`, SOURCES_ONLY, async () => {
    await using sandbox = await bladeSandbox();
    const script = await writeScript(sandbox, "script", scriptOf(c.children));
    const { run: failed, hits, atFault } = await runFaulty(sandbox, script, c.fault);
    assert.ok(hits > 0, `the fault was reached:\n${failed.stdout}\n${failed.stderr}`);
    assertClear(failed, "the failed run");
    const out = parseJsonResult(failed);
    const error = out.error as { code?: string; message?: string; hint?: string } | undefined;
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    assert.equal(out.is_error, true);
    assert.equal(error?.code, c.code, JSON.stringify(error));
    assert.match(error?.message ?? "", c.message);
    const hint = /(Free space|Remount|Make that folder writable)/;
    assert.match(error?.hint ?? error?.message ?? "", hint, "a hint says what to do");
    // The background child named is the one the run delegated to (its sidecar says its id).
    const bg = await childId(sandbox, "bg child");
    if (c.kind === "sidecar" || c.kind === "inbox") assert.ok(error?.message?.includes(bg), error?.message);
    if (c.code === "child_write_failed") {
      const child = (await sidecarFiles(sandbox)).records.find((r) => r.description === "fg child");
      assert.equal(child?.status, "failed", "the child's failed end is saved");
    }
    const torn = await tornFiles(sandbox);
    assert.deepEqual(torn, [], "a failed write leaves no torn file");
    if (c.kind === "lease") {
      const locks = [...Deno.readDirSync(`${projectDir(sandbox)}/.locks`)].map((e) => e.name);
      assert.deepEqual(locks.filter((n) => n.endsWith(".lock")), [], "no half-written lease is left");
    }
    // The disk is freed; the next run works and loses nothing that was committed.
    const session = await sessionOf(sandbox);
    // A failure after the session was opened names it, so a script can --resume it.
    if (session !== undefined) assert.equal(out.session_id, session, "the result names the session");
    const next = await sandbox.run(
      scriptedArgs(script, "Carry on.", session === undefined ? [] : ["--resume", session]),
    );
    assertClear(next, "the next run");
    assert.equal(next.code, 0, next.stdout + next.stderr);
    const after = await transcripts(sandbox);
    const lost = lostLines(atFault, after);
    assert.equal(lost, 0, "every line committed before the fault is still there");
    const { records } = await sidecarFiles(sandbox);
    assert.deepEqual(
      records.filter((r) => r.status === "running").map((r) => r.id),
      [],
      "nothing left running",
    );
    if (c.kind === "inbox" && session !== undefined) {
      // The dropped notice is queued again by the restart's recovery and delivered once.
      assert.equal(
        receipts(after.get(`${session}.jsonl`) ?? "").get(`background-subagent-completion:${bg}`),
        1,
      );
    }
    const t = tally.get(c.kind) ?? { cases: 0, clear: 0, nextRunOk: 0, torn: 0, lost: 0 };
    t.cases++;
    t.clear++;
    t.nextRunOk++;
    t.torn += torn.length + (await tornFiles(sandbox)).length;
    t.lost += lost;
    tally.set(c.kind, t);
    if ([...tally.values()].reduce((n, v) => n + v.cases, 0) === CASES.length) {
      printSummary(
        "disk full / read-only / no permission",
        [...tally].map(([kind, v]) =>
          `${kind} ${v.cases} (clear error ${v.clear}, next run ok ${v.nextRunOk}, torn files ${v.torn}, lost lines ${v.lost})`
        ),
      );
    }
  });
}

Deno.test(
  "disk fault: delivered notices cannot be removed from the inbox (EROFS): a warning, nothing lost, never delivered twice",
  SOURCES_ONLY,
  async () => {
    await using sandbox = await bladeSandbox();
    const script = await writeScript(sandbox, "script", scriptOf());
    // The notice is written; removing it once delivered (its inbox's last entry: an unlink) fails.
    const fault = { op: "remove" as const, path: "\\.inbox\\.json$", code: "EROFS" as const };
    const { run, hits } = await runFaulty(sandbox, script, fault);
    assert.ok(hits > 0, `the fault was reached:\n${run.stdout}\n${run.stderr}`);
    assertClear(run, "the run");
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const out = parseJsonResult(run);
    assert.equal(out.is_error, false);
    // The notice reaches the parent with its second or third request, as the child's timing falls.
    assert.match(String(out.result), /^(main waits|parent done)$/);
    assert.match(
      run.stderr,
      /blade: warning: 1 delivered completion notice\(s\) could not be removed from the inbox: Could not write \S+\.inbox\.json: it is on a read-only file system \(EROFS\)\. Nothing is lost/,
    );
    const session = await sessionOf(sandbox);
    assert.ok(session !== undefined);
    const next = await sandbox.run(scriptedArgs(script, "Carry on.", ["--resume", session]));
    assertClear(next, "the next run");
    assert.equal(next.code, 0, next.stdout + next.stderr);
    const after = await transcripts(sandbox);
    const bg = await childId(sandbox, "bg child");
    assert.equal(
      receipts(after.get(`${session}.jsonl`) ?? "").get(`background-subagent-completion:${bg}`),
      1,
    );
    const inbox = [...Deno.readDirSync(projectDir(sandbox))].filter((e) => e.name.endsWith(".inbox.json"));
    for (const e of inbox) {
      const text = Deno.readTextFileSync(`${projectDir(sandbox)}/${e.name}`);
      assert.doesNotMatch(text, new RegExp(bg), "the next start removed the acknowledged notice");
    }
  },
);

Deno.test(
  "disk fault: the turn's opening batch cannot be written (ENOSPC): the run fails with it and prints nothing of the answer",
  SOURCES_ONLY,
  async () => {
    await using sandbox = await bladeSandbox();
    // The first request goes out while the opening batch is written (lib/executor/turn_opening.ts).
    const script = await writeScript(sandbox, "script", {
      agents: { main: [{ turns: [{ text: "ANSWER-THAT-MUST-NOT-SHOW" }] }] },
    });
    const fault = { op: "append" as const, path: "/session-[^/]+\\.jsonl$", code: "ENOSPC" as const };
    for (const format of ["stream-json", "json"]) {
      const report = `${sandbox.root}/fault-report-${format}.json`;
      const run = await sandbox.run(
        [
          "-p",
          "Say it.",
          "--provider",
          "scripted",
          "--script",
          script,
          "--output-format",
          format,
          "--verbose",
        ],
        { entry: FAULTY_MAIN, env: { BLADE_FAULT: JSON.stringify(fault), BLADE_FAULT_REPORT: report } },
      );
      const { hits } = JSON.parse(await Deno.readTextFile(report)) as { hits: unknown[] };
      assert.ok(hits.length > 0, `the fault was reached:\n${run.stdout}\n${run.stderr}`);
      assertClear(run, `the failed run (${format})`);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.doesNotMatch(
        run.stdout + run.stderr,
        /ANSWER-THAT-MUST-NOT-SHOW/,
        "nothing of the answer is printed",
      );
      const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(lines.filter((l) => l.type === "assistant"), [], "no assistant message is printed");
      const out = lines.at(-1)!;
      assert.equal(out.is_error, true);
      const error = out.error as { code?: string; message?: string } | undefined;
      assert.equal(error?.code, "storage_write_failed", JSON.stringify(out));
      assert.match(
        error?.message ?? "",
        /^Could not write \S+\/session-[^/]+\.jsonl: the disk is full \(ENOSPC\)\.$/,
      );
      assert.deepEqual(await tornFiles(sandbox), [], "a failed write leaves no torn file");
    }
  },
);
