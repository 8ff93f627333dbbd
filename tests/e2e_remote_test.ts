// End-to-end: remote children (docs/guides/remote.md) through the real CLI on a real NATS JetStream
// cluster (3 nodes, R3) with `blade worker` processes of their own HOMEs and storage roots, and the
// scripted provider. Many remote children all complete, each notice reaches the parent once, none
// runs twice, none is left running; the child works on the parent's snapshot (uncommitted changes
// included) and its branch comes back with `tasks output --fetch`; a worker refuses a job above its
// maximum. Counts are printed: lost, duplicated, run twice, stranded.

import assert from "node:assert/strict";
import { findNatsServer } from "../lib/testing/nats_server.ts";
import { canSetHostname, runBlade, spawnBlade, transcriptEvents, transcriptPath } from "./support/blade.ts";
import type { WorkerStatus } from "../lib/worker/worker_status.ts";
import { startFleet } from "./support/remote_fleet.ts";
import { BladeTerminal } from "./support/terminal.ts";
import { stdioTestServer } from "../lib/testing/mcp_test_server.ts";
import { completionInboxId } from "../lib/run/notice.ts";
import type { SidecarRecord } from "../lib/store/schema.ts";

const binary = await findNatsServer();

/** Remote children the scale test starts (issue 36: 100). */
const CHILDREN = 100;

function script(children: number): string {
  const calls = Array.from({ length: children }, (_, i) =>
    `            - name: Task
              input: { subagent_type: Explore, description: "Remote ${i}", prompt: "Read notes.txt for ${i}.", isolation: remote }`);
  return `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
${calls.join("\n")}
        - text: "all started"
        - text: "noted"
  Explore:
    - turns:
        - tool_calls:
            - name: Read
              input: { file_path: "notes.txt" }
        - text: "read {{last_user}}"
`;
}

/** The parent's delivered notices per child id, from its transcript (hidden messages by inbox id). */
async function deliveredNotices(o: { storage: string; workspace: string; sessionId: string }) {
  const events = await transcriptEvents(transcriptPath(o, o.sessionId));
  const counts = new Map<string, number>();
  for (const e of events) {
    if (e.type !== "message_created" || e.data.inboxId === undefined) continue;
    counts.set(e.data.inboxId, (counts.get(e.data.inboxId) ?? 0) + 1);
  }
  return counts;
}

function failureCounts(records: SidecarRecord[], notices: Map<string, number>, expected: number) {
  const completed = records.filter((r) => r.status === "completed");
  return {
    lost: expected - completed.length,
    duplicated: [...notices.values()].filter((n) => n > 1).length,
    runTwice: records.filter((r) => (r.remote?.attempts ?? 0) > 1).length,
    stranded: records.filter((r) => r.status === "running").length,
    undelivered: records.filter((r) => !notices.has(completionInboxId(r.id))).length,
  };
}

if (binary === null) {
  Deno.test({
    name: "e2e remote children: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test(`e2e remote children: ${CHILDREN} on 3 workers over a 3-node cluster all complete, each notice once`, async () => {
    await using fleet = await startFleet(binary, {
      nodes: 3,
      workers: 3,
      script: script(CHILDREN),
      workerFlags: ["--concurrency", "4"],
      uncommitted: { "notes.txt": "committed line\nuncommitted line\n" },
    });
    const home = `${fleet.root}/parent-home`;
    const storage = `${fleet.root}/parent-storage`;
    const run = await runBlade(
      ["-p", "Fan out", ...fleet.script, ...fleet.store, "--trust-workspace", "--output-format", "json"],
      { cwd: fleet.workspace, env: { HOME: home, BLADE_STORAGE_ROOT: storage } },
    );
    const records = await fleet.records();
    if (run.code !== 0 || records.length !== CHILDREN) {
      // What the parent and the workers said, to tell a placement failure from a worker's.
      const logs = (await Promise.all(fleet.workers.map((w) => w.stop()))).join("\n");
      assert.fail(
        `exit ${run.code}, ${records.length} records of ${CHILDREN}\nparent stdout: ${
          run.stdout.slice(0, 4000)
        }\n` +
          `parent stderr: ${run.stderr.slice(0, 4000)}\nworkers: ${logs.slice(0, 8000)}`,
      );
    }
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const notices = await deliveredNotices({ storage, workspace: fleet.workspace, sessionId });
    const counts = failureCounts(records, notices, CHILDREN);
    // deno-lint-ignore no-console -- the counts the issue asks to report
    console.log(
      `remote x${CHILDREN}: lost ${counts.lost}, duplicated ${counts.duplicated}, run twice ${counts.runTwice}, ` +
        `stranded ${counts.stranded}, undelivered ${counts.undelivered}`,
    );
    assert.deepEqual(counts, { lost: 0, duplicated: 0, runTwice: 0, stranded: 0, undelivered: 0 });
    // Every child read the parent's uncommitted line from the snapshot, on some worker.
    for (const r of records) {
      const read = r.messages.flatMap((m) => m.content).find((c) => c.type === "tool_result");
      assert.ok(read?.type === "tool_result" && read.content.includes("uncommitted line"), r.id);
      assert.match(r.remote?.worker ?? "", /\/\d+$/);
      // Ended by the worker that ran it, not recovered by another one.
      assert.equal(r.restartRecovery, undefined, r.id);
    }
    const workersUsed = new Set(records.map((r) => r.remote!.worker));
    assert.ok(workersUsed.size >= 2, `jobs spread over the workers: ${[...workersUsed].join(", ")}`);
    const logs = (await Promise.all(fleet.workers.map((w) => w.stop()))).join("\n");
    assert.doesNotMatch(logs, /commit_failed|left for redelivery|lease_lost/);
  });
}

if (binary !== null) {
  Deno.test("e2e remote: worker status shows the job and its lease; the branch comes back with --fetch; a job above the worker's maximum is refused", async () => {
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 1,
      script: `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: general-purpose, description: "Write remotely", prompt: "Write result.txt.", isolation: remote }
        - text: "started"
        - text: "noted"
  general-purpose:
    - turns:
        - tool_calls:
            - name: Write
              input: { file_path: "result.txt", content: "written on the worker\\n" }
        - text: "wrote it"
          delay_ms: 6000 # the window in which worker status is read: wide enough for a loaded machine
`,
    });
    const env = { HOME: `${fleet.root}/parent-home`, BLADE_STORAGE_ROOT: `${fleet.root}/parent-storage` };
    const parentArgs = [
      "-p",
      "Go",
      ...fleet.script,
      ...fleet.store,
      "--trust-workspace",
      "--output-format",
      "json",
    ];
    const parent = await spawnBlade([...parentArgs, "--permission-mode", "acceptEdits"], {
      cwd: fleet.workspace,
      env,
    });
    const worker = fleet.workers[0]!;
    // While the child runs: the worker holds its job and the job's lease (it lists a job it took a
    // moment before it takes the job's lease: wait for both).
    let status: WorkerStatus | undefined;
    const held = (s: WorkerStatus | undefined) =>
      s?.workers[0]?.jobs.length === 1 && (s.workers[0].leases[0]?.holder ?? null) !== null;
    for (let i = 0; i < 150 && !held(status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      const shown = await runBlade(["worker", "status", "--json", ...fleet.store], { cwd: fleet.root, env });
      assert.equal(shown.code, 0, shown.stderr);
      status = JSON.parse(shown.stdout) as WorkerStatus;
    }
    const [entry] = status!.workers;
    assert.equal(entry?.pid, worker.process.pid);
    assert.equal(entry?.stale, false);
    const [lease] = entry!.leases;
    assert.equal(lease?.holder?.pid, worker.process.pid);
    assert.ok(lease!.holder!.expiresAt > Date.now());
    const result = await parent.result;
    assert.equal(result.code, 0, result.stderr);
    const [done] = await fleet.records();
    assert.equal(done?.status, "completed");
    assert.equal(done?.remote?.commits, 1);

    // The child's file is on its branch, brought here by --fetch; the work tree is untouched.
    const fetched = await runBlade(["tasks", "output", done!.id, "--fetch", ...fleet.store], {
      cwd: fleet.workspace,
      env,
    });
    assert.equal(fetched.code, 0, fetched.stderr);
    assert.match(fetched.stderr, new RegExp(`Fetched blade/${done!.id} at [0-9a-f]{12}`));
    const show = await new Deno.Command("git", {
      args: ["show", `blade/${done!.id}:result.txt`],
      cwd: fleet.workspace,
    })
      .output();
    assert.equal(new TextDecoder().decode(show.stdout), "written on the worker\n");
    await assert.rejects(Deno.stat(`${fleet.workspace}/result.txt`), Deno.errors.NotFound);

    // bypassPermissions is wider than the worker's maximum (acceptEdits): refused, and said so.
    const wide = await runBlade([...parentArgs, "--permission-mode", "bypassPermissions"], {
      cwd: fleet.workspace,
      env,
    });
    assert.equal(wide.code, 0, wide.stderr);
    const refused = (await fleet.records()).find((r) => r.id !== done!.id);
    assert.equal(refused?.status, "failed");
    assert.match(
      refused?.result.error ?? "",
      /^Refused by the worker .+\/\d+: its permission mode yolo is wider than this worker's maximum autoEdit\.$/,
    );
    await worker.stop();
  });
}

if (binary !== null) {
  Deno.test("e2e remote: TaskStop stops a remote child on its worker; resume_from runs it remotely again", async () => {
    const id = '{{match:"agent_id":"(agent-[A-Za-z0-9_-]+)"}}';
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 1,
      script: `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Long job", prompt: "Long job: think hard.", isolation: remote }
        - delay_ms: 2500
          tool_calls:
            - name: TaskStop
              input: { task_id: '${id}' }
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Again", prompt: "Resume job: finish it.", resume_from: '${id}' }
        - text: "noted"
  Explore:
    - match: "Long job"
      turns:
        - text: "answered"
          delay_ms: 5000
`,
    });
    const env = { HOME: `${fleet.root}/parent-home`, BLADE_STORAGE_ROOT: `${fleet.root}/parent-storage` };
    const run = await runBlade(
      ["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace", "--output-format", "json"],
      { cwd: fleet.workspace, env },
    );
    assert.equal(run.code, 0, run.stderr);
    const records = await fleet.records();
    const stopped = records.find((r) => r.resumedFrom === undefined);
    const resumed = records.find((r) => r.resumedFrom !== undefined);
    assert.equal(stopped?.status, "cancelled");
    assert.equal(stopped?.result.error, "Stopped with TaskStop.");
    assert.match(stopped?.remote?.worker ?? "", /\/\d+$/, "the worker had started it when it was stopped");
    assert.equal(resumed?.resumedFrom, stopped?.id);
    assert.equal(resumed?.isolation, "remote");
    assert.equal(resumed?.status, "completed");
    // The resumed run carries the stopped run's history (its first message is the source's prompt).
    assert.equal(resumed?.result.message, "answered");
    assert.match(JSON.stringify(resumed?.messages[0]), /Long job: think hard/);
    assert.match(resumed?.remote?.worker ?? "", /\/\d+$/);
    // Each run's notice reached the parent once.
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const notices = await deliveredNotices({
      storage: env.BLADE_STORAGE_ROOT,
      workspace: fleet.workspace,
      sessionId,
    });
    assert.deepEqual(
      [notices.get(completionInboxId(stopped!.id)), notices.get(completionInboxId(resumed!.id))],
      [1, 1],
    );
    const log = await fleet.workers[0]!.stop();
    assert.doesNotMatch(log, /commit_failed|lease_lost/);
  });
}

if (binary !== null) {
  Deno.test("e2e remote: two clones at different paths sharing one store each list the run the other started, with its machine", async () => {
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 0,
      script: `agents:
  main:
    - match: "From A"
      turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Started on A", prompt: "Read notes.txt." }
        - text: "done"
    - match: "From B"
      turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Started on B", prompt: "Read notes.txt." }
        - text: "done"
  Explore:
    - turns:
        - text: "read it"
`,
    });
    // Machine B: its own HOME, storage root and a clone of the repository at another path.
    const b = { root: `${fleet.root}/machine-b`, checkout: `${fleet.root}/machine-b/src/project` };
    await Deno.mkdir(`${b.root}/src`, { recursive: true });
    const cloned = await new Deno.Command("git", {
      args: ["clone", "--quiet", fleet.workspace, b.checkout],
      stderr: "piped",
    }).output();
    assert.ok(cloned.success, new TextDecoder().decode(cloned.stderr));
    // Each side its own hostname where the test may set one (root), so the MACHINE column shows.
    const named = await canSetHostname();
    const machines = named ? { a: "blade-machine-a", b: "blade-machine-b" } : undefined;
    const sides = {
      a: {
        cwd: fleet.workspace,
        env: { HOME: `${fleet.root}/a-home`, BLADE_STORAGE_ROOT: `${fleet.root}/a-storage` },
        ...(machines === undefined ? {} : { hostname: machines.a }),
      },
      b: {
        cwd: b.checkout,
        env: { HOME: `${b.root}/home`, BLADE_STORAGE_ROOT: `${b.root}/storage` },
        ...(machines === undefined ? {} : { hostname: machines.b }),
      },
    };
    for (const [side, prompt] of [["a", "From A"], ["b", "From B"]] as const) {
      const run = await runBlade(
        ["-p", prompt, ...fleet.script, ...fleet.store, "--trust-workspace"],
        sides[side],
      );
      assert.equal(run.code, 0, run.stderr);
    }
    const records = await fleet.records();
    const fromA = records.find((r) => r.description === "Started on A");
    const fromB = records.find((r) => r.description === "Started on B");
    assert.ok(fromA !== undefined && fromB !== undefined, JSON.stringify(records.map((r) => r.description)));
    // The same project key on both, though the paths differ.
    assert.notEqual(fromA.parentProjectPath, fromB.parentProjectPath);
    assert.match(fromA.projectKey ?? "", /^git:[0-9a-f]{40}$/);
    assert.equal(fromB.projectKey, fromA.projectKey);
    if (machines !== undefined) assert.deepEqual([fromA.machine, fromB.machine], [machines.a, machines.b]);

    for (const side of ["a", "b"] as const) {
      const json = await runBlade(["tasks", "list", "--json", ...fleet.store], sides[side]);
      assert.equal(json.code, 0, json.stderr);
      const listed = JSON.parse(json.stdout) as { id: string; machine?: string }[];
      assert.deepEqual(listed.map((r) => r.id).sort(), [fromA.id, fromB.id].sort(), `side ${side}`);
      if (machines !== undefined) {
        // The --json listing names each run's machine, as the MACHINE column does.
        const machineOf = (id: string) => listed.find((r) => r.id === id)?.machine;
        assert.deepEqual([machineOf(fromA.id), machineOf(fromB.id)], [machines.a, machines.b]);
      }
      const text = await runBlade(["tasks", "list", ...fleet.store], sides[side]);
      assert.equal(text.code, 0, text.stderr);
      const row = (id: string) => text.stdout.split("\n").find((l) => l.includes(id)) ?? "";
      if (machines !== undefined) {
        assert.match(text.stdout, /MACHINE/, text.stdout);
        assert.match(row(fromA.id), new RegExp(machines.a), text.stdout);
        assert.match(row(fromB.id), new RegExp(machines.b), text.stdout);
      } else {
        assert.notEqual(row(fromA.id), "", text.stdout);
        assert.notEqual(row(fromB.id), "", text.stdout);
      }
      // The other side's run reads back by id too.
      const other = side === "a" ? fromB : fromA;
      const output = await runBlade(["tasks", "output", other.id, ...fleet.store], sides[side]);
      assert.equal(output.code, 0, output.stderr);
      assert.match(output.stdout, /read it/);
    }
    // Without --store each side's file store has no run of the other's: nothing listed.
    const local = await runBlade(["tasks", "list", "--json"], sides.a);
    assert.deepEqual(JSON.parse(local.stdout), []);
  });
}

if (binary !== null) {
  Deno.test("e2e remote: a remote child (and its own child) sees the parent's skills — project ones from its checkout, the user's and ignored ones carried with the job", async () => {
    const skill = (name: string, mark: string) =>
      `---\nname: ${name}\ndescription: The ${name} procedure\n---\nFollow ${mark} with $ARGUMENTS.\n`;
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 1,
      files: {
        "notes.txt": "committed line\n",
        ".gitignore": ".claude/skills/local-only/\n",
        ".claude/skills/deploy-check/SKILL.md": skill("deploy-check", "PROJECT-MARK-checkout"),
        ".claude/skills/deploy-check/steps.md": "STEPS-MARK-supporting\n",
      },
      // Ignored: not in the snapshot, so it travels as text like a user skill.
      uncommitted: { ".claude/skills/local-only/SKILL.md": skill("local-only", "IGNORED-MARK-carried") },
      script: `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: general-purpose, description: "Use skills", prompt: "Use the skills.", isolation: remote }
        - text: "started"
        - text: "noted"
  general-purpose:
    - match: "Nested skill use"
      turns:
        - tool_calls:
            - name: Skill
              input: { skill: user-notes }
        - text: "nested [{{match:USER-MARK-(\\\\w+)}}]"
    - turns:
        - tool_calls:
            - name: Skill
              input: { skill: deploy-check, args: "staging" }
        - tool_calls:
            - name: Read
              input: { file_path: ".claude/skills/deploy-check/steps.md" }
        - tool_calls:
            - name: Skill
              input: { skill: user-notes }
        - tool_calls:
            - name: Skill
              input: { skill: local-only }
        - tool_calls:
            - name: Task
              input: { subagent_type: general-purpose, description: "Nested", prompt: "Nested skill use, on the worker." }
        - text: "grandchild [{{match:nested \\\\[(\\\\w+)\\\\]}}] listed [{{match:- (user-notes): The user-notes procedure}}] project [{{match:PROJECT-MARK-(\\\\w+) with staging}}] steps [{{match:STEPS-MARK-(\\\\w+)}}] user [{{match:USER-MARK-(\\\\w+)}}] ignored [{{match:IGNORED-MARK-(\\\\w+)}}] files [{{match:(its other files are not available here)}}]"
`,
    });
    const home = `${fleet.root}/parent-home`;
    // The parent's own skill: in its HOME only, on no worker.
    await Deno.mkdir(`${home}/.claude/skills/user-notes`, { recursive: true });
    await Deno.writeTextFile(
      `${home}/.claude/skills/user-notes/SKILL.md`,
      skill("user-notes", "USER-MARK-travelled"),
    );
    const env = { HOME: home, BLADE_STORAGE_ROOT: `${fleet.root}/parent-storage` };
    const run = await runBlade(
      ["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace", "--output-format", "json"],
      { cwd: fleet.workspace, env },
    );
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const records = await fleet.records();
    const done = records.find((r) => r.description === "Use skills");
    // Its own child ran on the worker too, within its run.
    assert.deepEqual(records.map((r) => r.description).sort(), ["Nested", "Use skills"]);
    const log = await fleet.workers[0]!.stop();
    assert.equal(done?.status, "completed", `${JSON.stringify(done?.result)}\n${log}`);
    assert.match(done?.remote?.worker ?? "", /\/\d+$/);
    assert.equal(
      done?.result.message,
      "grandchild [travelled] listed [user-notes] project [checkout] steps [supporting] user [travelled] ignored [carried] " +
        "files [its other files are not available here]",
    );
  });
}

if (binary !== null) {
  Deno.test("e2e remote: a remote child gets the worker's own MCP servers (--mcp-config), filtered by its rules; an agent's inline server is never started on a worker", async () => {
    const outside = await Deno.makeTempDir();
    await using _outside = { [Symbol.asyncDispose]: () => Deno.remove(outside, { recursive: true }) };
    const marker = `${outside}/started-by-a-job`;
    const servers = {
      mcpServers: { ops: { ...stdioTestServer(["--label=ops"]), env: { DENO_DIR: "${DENO_DIR}" } } },
    };
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 1,
      workerFlags: ["--mcp-config", JSON.stringify(servers)],
      files: {
        "notes.txt": "committed line\n",
        // An agent whose inline server would run a command: the parent's repository, not the worker's.
        ".claude/agents/inliner.md": `---\nname: inliner\ndescription: Uses its own server\nmcpServers:\n` +
          `  - ops\n  - sneaky:\n      command: touch\n      args: ["${marker}"]\n---\nUse the tools.\n`,
      },
      script: `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: general-purpose, description: "Echo remotely", prompt: "Echo through ops.", isolation: remote }
            - name: Task
              input: { subagent_type: inliner, description: "Inline remotely", prompt: "Inline server use.", isolation: remote }
        - text: "started"
        - text: "noted"
  general-purpose:
    - turns:
        - tool_calls:
            - name: mcp__ops__echo
              input: { text: "from the worker" }
            - name: mcp__ops__note
              input: { text: "denied" }
        - text: "[{{match:(ops echo: from the worker)}}] [{{match:(Permission denied: mcp__ops__note matches the deny rule)}}]"
  inliner:
    - turns:
        - tool_calls:
            - name: mcp__ops__echo
              input: { text: "inliner" }
        - text: "[{{match:(ops echo: inliner)}}]"
`,
    });
    const env = { HOME: `${fleet.root}/parent-home`, BLADE_STORAGE_ROOT: `${fleet.root}/parent-storage` };
    const run = await runBlade(
      [
        "-p",
        "Go",
        ...fleet.script,
        ...fleet.store,
        "--trust-workspace",
        "--output-format",
        "json",
        "--allowed-tools",
        "mcp__ops__echo",
        "--disallowed-tools",
        "mcp__ops__note",
      ],
      { cwd: fleet.workspace, env },
    );
    assert.equal(run.code, 0, run.stderr);
    const records = await fleet.records();
    if (records.length !== 2) assert.fail(`${records.length} records: ${run.stdout}\n${run.stderr}`);
    const log = await fleet.workers[0]!.stop();
    const echo = records.find((r) => r.subagentType === "general-purpose");
    const inliner = records.find((r) => r.subagentType === "inliner");
    assert.equal(echo?.status, "completed", `${JSON.stringify(echo?.result)}\n${log}`);
    // The worker's server answered; the parent's deny rule refused the other tool.
    assert.equal(
      echo?.result.message,
      "[ops echo: from the worker] [Permission denied: mcp__ops__note matches the deny rule]",
      JSON.stringify(echo?.messages),
    );
    // The agent's named server is the worker's; its inline definition started nothing, and said so.
    assert.equal(inliner?.result.message, "[ops echo: inliner]", log);
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
    assert.match(log, /agent "inliner": MCP server "sneaky" is not started on a worker/);
  });
}

if (binary !== null) {
  Deno.test("e2e remote: a run a killed process left running is reconciled by a clone sharing its storage, read and resumed from a clone elsewhere; never by another project", async () => {
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 0,
      script: `agents:
  main:
    - turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Left on A", prompt: "Slow job: take your time.", run_in_background: true }
        - text: "started"
        - text: "noted"
  Explore:
    - turns:
        - text: "finished the slow job"
          delay_ms: 8000
`,
    });
    // Machine B: its own HOME, storage root and a clone of the repository at another path; C: another
    // repository (another project) sharing the same store.
    const b = { root: `${fleet.root}/machine-b`, checkout: `${fleet.root}/machine-b/src/project` };
    const c = `${fleet.root}/machine-c/project`;
    await Deno.mkdir(`${b.root}/src`, { recursive: true });
    await Deno.mkdir(c, { recursive: true });
    const git = async (args: string[], cwd = fleet.root) => {
      const out = await new Deno.Command("git", { args, cwd, stderr: "piped" }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
    };
    await git(["clone", "--quiet", fleet.workspace, b.checkout]);
    await Deno.writeTextFile(`${c}/notes.txt`, "another project\n");
    await git(["init", "-q"], c);
    await git(["add", "-A"], c);
    await git(["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "other"], c);
    const sideA = {
      cwd: fleet.workspace,
      env: { HOME: `${fleet.root}/a-home`, BLADE_STORAGE_ROOT: `${fleet.root}/a-storage` },
    };
    const sideB = {
      cwd: b.checkout,
      env: { HOME: `${b.root}/home`, BLADE_STORAGE_ROOT: `${b.root}/storage` },
    };
    const sideC = {
      cwd: c,
      env: { HOME: `${fleet.root}/machine-c/home`, BLADE_STORAGE_ROOT: `${fleet.root}/machine-c/storage` },
    };

    // A's process is SIGKILLed while its background child runs: the record is left "running".
    const parent = await spawnBlade(
      ["-p", "From A", ...fleet.script, ...fleet.store, "--trust-workspace"],
      { ...sideA, processGroup: true },
    );
    let exited = false;
    void parent.result.then(() => exited = true);
    let left: SidecarRecord | undefined;
    // Killed once the child has begun its transcript (its prompt in it): a child killed before that has
    // no history to resume from, and its run is rightly failed, not interrupted.
    const begun = async (r: SidecarRecord) => {
      const where = {
        storage: sideA.env.BLADE_STORAGE_ROOT,
        workspace: await Deno.realPath(fleet.workspace),
      };
      const text = await Deno.readTextFile(transcriptPath(where, r.id)).catch(() => "");
      return text.includes("Slow job");
    };
    for (let i = 0; i < 600 && left === undefined && !exited; i++) {
      const running = (await fleet.records()).find((r) => r.status === "running");
      left = running !== undefined && await begun(running) ? running : undefined;
      if (left === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    if (left === undefined) {
      if (!exited) parent.kill("SIGKILL");
      const { stdout, stderr } = await parent.result;
      assert.fail(`the child never ran on A: ${stdout}${stderr}`);
    }
    parent.kill("SIGKILL");
    const killedA = await parent.result;
    assert.equal(killedA.code, 137, `A was killed while its child ran: ${killedA.stdout}${killedA.stderr}`);
    const [killed] = await fleet.records();
    assert.equal(killed?.status, "running", "the kill hit a live run");

    // Another project (C) sees none of it: not listed, not resumable.
    const foreign = await runBlade(["tasks", "list", "--json", ...fleet.store], sideC);
    assert.equal(foreign.code, 0, foreign.stderr);
    assert.deepEqual(JSON.parse(foreign.stdout), [], foreign.stderr);
    const refused = await runBlade(
      [
        "tasks",
        "resume",
        left.id,
        "Go on from machine C",
        ...fleet.script,
        ...fleet.store,
        "--trust-workspace",
      ],
      sideC,
    );
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /session not found in this workspace/);
    assert.deepEqual((await fleet.records()).map((r) => r.id), [left.id], "C started nothing");
    assert.equal((await fleet.records())[0]?.status, "running", "C reconciled nothing of another project");

    // B lists it (its project's), but leaves it alone: its transcript is kept by A's storage, and
    // reconciled here it would end failed for a missing history, never resumable.
    const listed = await runBlade(["tasks", "list", "--json", ...fleet.store], sideB);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { id: string }[]).map((r) => r.id), [left.id]);
    assert.equal((await fleet.records())[0]?.status, "running", "B left A's run to A's storage");
    // A second clone on A's machine (A's storage root, another path) reconciles it: A's process is
    // dead, and its transcript is here, so it ends interrupted and resumable.
    const a2 = `${fleet.root}/a-second-clone`;
    await git(["clone", "--quiet", fleet.workspace, a2]);
    const reconciling = await runBlade(["tasks", "list", "--json", ...fleet.store], { ...sideA, cwd: a2 });
    assert.equal(reconciling.code, 0, reconciling.stderr);
    const [reconciled] = await fleet.records();
    assert.equal(
      reconciled?.restartRecovery?.outcome,
      "interrupted",
      reconciling.stderr + reconciled?.status,
    );
    assert.notEqual(reconciled?.status, "running");

    // B reads it with /tasks transcript: its transcript stayed on A, and the line says where.
    {
      await using term = await BladeTerminal.start([...fleet.script, ...fleet.store, "--trust-workspace"], {
        cwd: sideB.cwd,
        env: { ...sideB.env, NO_COLOR: "1" },
      });
      await term.waitFor("/help for commands");
      await term.type(`/tasks transcript ${left.id}`);
      await term.press("Enter");
      await term.waitFor(/no transcript here: the run was started from/);
      await term.waitFor(new RegExp(`${left.id} \\(Explore\\): Left on A`));
      await term.type("/exit");
      await term.press("Enter");
      assert.equal(await term.exitCode(), 0);
    }

    // B resumes it: a new run in B's checkout, with A's run's history and the same project key.
    const resumed = await runBlade(
      [
        "tasks",
        "resume",
        left.id,
        "Go on from machine B",
        ...fleet.script,
        ...fleet.store,
        "--trust-workspace",
      ],
      sideB,
    );
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.match(resumed.stdout, /finished the slow job/);
    assert.match(resumed.stdout, new RegExp(`resumed_from: ${left.id}`));
    const next = (await fleet.records()).find((r) => r.resumedFrom === left!.id);
    assert.ok(next !== undefined);
    assert.equal(next.status, "completed");
    assert.equal(next.parentProjectPath, await Deno.realPath(b.checkout));
    assert.equal(next.workspaceRoot, await Deno.realPath(b.checkout));
    assert.equal(next.projectKey, left.projectKey);
    assert.match(JSON.stringify(next.messages[0]), /Slow job/);
  });
}

if (binary !== null) {
  Deno.test("e2e remote: a remote child's own children, started on its worker, carry the job's project key; another clone lists them", async () => {
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 1,
      script: `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: general-purpose, description: "Delegates on a worker", prompt: "Ask Explore to read notes.txt.", isolation: remote }
        - text: "started"
        - text: "noted"
  general-purpose:
    - turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Nested on the worker", prompt: "Read notes.txt, please." }
        - text: "delegated"
  Explore:
    - turns:
        - text: "read it"
`,
    });
    const run = await runBlade(
      ["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace"],
      {
        cwd: fleet.workspace,
        env: { HOME: `${fleet.root}/a-home`, BLADE_STORAGE_ROOT: `${fleet.root}/a-storage` },
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const records = await fleet.records();
    const child = records.find((r) => r.description === "Delegates on a worker");
    const nested = records.find((r) => r.description === "Nested on the worker");
    assert.ok(child !== undefined && nested !== undefined, JSON.stringify(records.map((r) => r.description)));
    assert.equal(child.status, "completed", child.result.error);
    assert.equal(nested.status, "completed", nested.result.error);
    assert.equal(nested.parentSessionId, child.id);
    assert.match(nested.machine ?? "", /./, "the worker's machine started it");
    assert.match(child.projectKey ?? "", /^git:[0-9a-f]{40}$/);
    assert.equal(nested.projectKey, child.projectKey, "the job's key, not the worker's (none)");
    // A clone at another path lists both.
    const clone = `${fleet.root}/machine-b/project`;
    const cloned = await new Deno.Command("git", { args: ["clone", "--quiet", fleet.workspace, clone] })
      .output();
    assert.ok(cloned.success);
    const listed = await runBlade(["tasks", "list", "--json", ...fleet.store], {
      cwd: clone,
      env: { HOME: `${fleet.root}/machine-b/home`, BLADE_STORAGE_ROOT: `${fleet.root}/machine-b/storage` },
    });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { id: string }[]).map((r) => r.id).sort(),
      [child.id, nested.id].sort(),
    );
    // There, /tasks transcript reads the remote child's transcript from the shared store (its worker
    // copied it there): its own Task call and its answer.
    {
      await using term = await BladeTerminal.start([...fleet.script, ...fleet.store, "--trust-workspace"], {
        cwd: clone,
        env: {
          HOME: `${fleet.root}/machine-b/home`,
          BLADE_STORAGE_ROOT: `${fleet.root}/machine-b/storage`,
          NO_COLOR: "1",
        },
      });
      await term.waitFor("/help for commands");
      await term.type(`/tasks transcript ${child.id}`);
      await term.press("Enter");
      await term.waitFor(/Transcript: the shared store/);
      const shown = await term.history();
      assert.match(shown, /delegated/, shown);
      assert.match(shown, /Nested on the worker/, shown);
      await term.type("/exit");
      await term.press("Enter");
      assert.equal(await term.exitCode(), 0);
    }
    await fleet.workers[0]!.stop();
  });
}

if (binary !== null) {
  Deno.test("e2e remote: a nested run another clone started resumes here at its own depth (counted by its ancestors' records)", async () => {
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 0,
      script: `agents:
  main:
    - turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: general-purpose, description: "Middle on A", prompt: "Ask Explore to look around." }
        - text: "done"
  general-purpose:
    - turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Deep on A", prompt: "Look around the notes, please." }
        - text: "delegated"
  Explore:
    - turns:
        - text: "looked"
        - text: "looked again"
`,
    });
    const a = await runBlade(["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace"], {
      cwd: fleet.workspace,
      env: { HOME: `${fleet.root}/a-home`, BLADE_STORAGE_ROOT: `${fleet.root}/a-storage` },
    });
    assert.equal(a.code, 0, a.stderr);
    const records = await fleet.records();
    const middle = records.find((r) => r.description === "Middle on A");
    const deep = records.find((r) => r.description === "Deep on A");
    assert.ok(middle !== undefined && deep !== undefined, JSON.stringify(records.map((r) => r.description)));
    assert.equal(deep.parentSessionId, middle.id);
    // Machine B: its own storage (no transcript of A's runs) and a clone at another path.
    const b = { checkout: `${fleet.root}/machine-b/project`, storage: `${fleet.root}/machine-b/storage` };
    const cloned = await new Deno.Command("git", { args: ["clone", "--quiet", fleet.workspace, b.checkout] })
      .output();
    assert.ok(cloned.success);
    const resumed = await runBlade(
      [
        "tasks",
        "resume",
        deep.id,
        "Look once more from B",
        ...fleet.script,
        ...fleet.store,
        "--trust-workspace",
      ],
      { cwd: b.checkout, env: { HOME: `${fleet.root}/machine-b/home`, BLADE_STORAGE_ROOT: b.storage } },
    );
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.match(resumed.stdout, /looked again/);
    const next = (await fleet.records()).find((r) => r.resumedFrom === deep.id);
    assert.ok(next !== undefined);
    const events = await transcriptEvents(
      transcriptPath({ storage: b.storage, workspace: await Deno.realPath(b.checkout) }, next.id),
    );
    const header = events.find((e) => e.type === "session_created");
    assert.equal(
      header?.type === "session_created" ? header.data.depth : undefined,
      2,
      "the source's depth, not 1",
    );
  });
}
