// Resume end to end (real `blade` processes, scripted provider): the lineage chain root → child →
// grandchild through Task `resume_from`, the source never written, the frozen configuration kept when
// the agent's definition changed, every refusal with its message (another folder, a running source, a
// wrong type, a source whose restart recovery failed), and session leases (a second `--resume` of a
// live session fails fast).

import assert from "node:assert/strict";
import { projectFolderName } from "../lib/config/storage.ts";
import { bladeSandbox, parseJsonResult } from "./support/blade.ts";
import {
  killGroup,
  mainSessionId,
  receipts,
  scriptedArgs,
  sidecarFiles,
  transcripts,
  until,
  writeScript,
} from "./support/crash.ts";
import { parseTranscript } from "../lib/session/transcript.ts";

const call = (input: Record<string, unknown>) => ({
  name: "Task",
  input: { description: "a step", prompt: "Do this step of the work.", ...input },
});

// Ids are Blade's: the script names an earlier child by the id its result gave (`{{match:…}}`).
const LAST_ID = "{{match:agentId: (agent-[\\w-]{21})}}";
const DEPTH_2_ID =
  "{{match:agentId: (agent-[\\w-]{21}) \\(to continue[^\\n]*\\nresumed_from: [^\\n]*resume_depth: 2}}";

Deno.test("resume chain: depths 0/1/2 under one root, sources byte-identical, wrong type, unknown id and a chosen id refused", async () => {
  await using sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "chain", {
    agents: {
      main: [{
        turns: [
          { tool_calls: [call({ subagent_type: "general-purpose", description: "step 0" })] },
          { tool_calls: [call({ resume_from: LAST_ID, description: "step 1" })] },
          { tool_calls: [call({ resume: LAST_ID, description: "step 2" })] },
          { tool_calls: [call({ resume_from: LAST_ID, subagent_type: "Explore" })] },
          { tool_calls: [call({ resume_from: "agent-none" })] },
          // The new run's id is Blade's: naming one (here the source's own) is refused before anything runs.
          { tool_calls: [call({ resume_from: DEPTH_2_ID, subagent_session_id: DEPTH_2_ID })] },
          { text: "chain done" },
        ],
      }],
      "general-purpose": [{ repeat_last: true, turns: [{ text: "step answer" }] }],
    },
  });
  const run = await sandbox.run(scriptedArgs(script, "Run the chain."));
  assert.equal(run.code, 0, run.stderr);
  const { records } = await sidecarFiles(sandbox);
  assert.equal(records.length, 3, "no refused call made a run");
  const [r0, r1, r2] = ["step 0", "step 1", "step 2"].map((d) =>
    records.find((r) => r.description === d)!.id
  );
  const byId = new Map(records.map((r) => [r.id, r]));
  assert.deepEqual(
    [r0!, r1!, r2!].map((id) => {
      const r = byId.get(id)!;
      return [r.id, r.rootAgentId, r.resumedFrom ?? null, r.resumeDepth, r.status, r.messages.length];
    }),
    [
      [r0, r0, null, 0, "completed", 2],
      [r1, r0, r0, 1, "completed", 4],
      [r2, r0, r1, 2, "completed", 6],
    ],
  );
  const session = (await mainSessionId(sandbox))!;
  const results = parseTranscript((await transcripts(sandbox)).get(`${session}.jsonl`)!).events
    .flatMap((e) =>
      e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part.content] : []
    );
  assert.ok(results[1]!.includes(`resumed_from: ${r0}, root_agent_id: ${r0}, resume_depth: 1`), results[1]);
  assert.ok(results[2]!.includes(`resumed_from: ${r1}, root_agent_id: ${r0}, resume_depth: 2`), results[2]);
  assert.ok(
    results[3]!.includes(
      `Cannot resume "${r2}" with subagent_type "Explore": source agent used "general-purpose".\nagentId: agent-`,
    ),
    results[3],
  );
  assert.match(results[4]!, /Cannot resume "agent-none": session not found in this workspace\./);
  assert.match(
    results[5]!,
    /^Invalid tool input for Task: subagent_session_id is assigned by Blade and may not be set by a call/,
  );
  // Sources are never written: resuming r2 again leaves every existing file as it was.
  const dir = `${sandbox.storage}/agents/sessions`;
  const before = await Promise.all([r0, r1, r2].map((id) => Deno.readTextFile(`${dir}/${id}.json`)));
  const cli = await sandbox.run([
    "tasks",
    "resume",
    r2!,
    "One more step please.",
    "--provider",
    "scripted",
    "--script",
    script,
    "--json",
  ]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(
    (({ resumed_from, root_agent_id, resume_depth }) => ({ resumed_from, root_agent_id, resume_depth }))(
      parseJsonResult(cli),
    ),
    { resumed_from: r2, root_agent_id: r0, resume_depth: 3 },
  );
  const after = await Promise.all([r0, r1, r2].map((id) => Deno.readTextFile(`${dir}/${id}.json`)));
  assert.deepEqual(after, before);
  // `blade tasks output` shows the lineage.
  const output = await sandbox.run(["tasks", "output", r2!]);
  assert.ok(
    output.stdout.includes(`resumed_from: ${r1}, root_agent_id: ${r0}, resume_depth: 2`),
    output.stdout,
  );
});

Deno.test("resume keeps the frozen configuration when the agent's definition changed; another folder is refused", async () => {
  await using sandbox = await bladeSandbox();
  const agents = (prompt: string, model: string) =>
    JSON.stringify({ reviewer: { description: "Reviews", prompt, model, tools: ["Read"] } });
  const script = await writeScript(sandbox, "def", {
    agents: {
      main: [{
        turns: [{ tool_calls: [call({ subagent_type: "reviewer" })] }, {
          text: "ok",
        }],
      }],
      reviewer: [{ repeat_last: true, turns: [{ text: "reviewed" }] }],
    },
  });
  const first = await sandbox.run(
    scriptedArgs(script, "Review it.", ["--agents", agents("Be strict.", "model-one")]),
  );
  assert.equal(first.code, 0, first.stderr);
  const d0 = (await sidecarFiles(sandbox)).records[0]!.id;
  const resumed = await sandbox.run([
    "tasks",
    "resume",
    d0,
    "Review the rest too.",
    "--provider",
    "scripted",
    "--script",
    script,
    "--json",
    "--agents",
    agents("Be lenient.", "model-two"),
  ]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const newId = parseJsonResult(resumed).agent_id as string;
  const { records } = await sidecarFiles(sandbox);
  const source = records.find((r) => r.id === d0)!;
  const child = records.find((r) => r.id === newId)!;
  assert.deepEqual(child.configSnapshot, source.configSnapshot);
  assert.equal(child.configSnapshot.systemPrompt, "Be strict.");
  assert.equal(child.configSnapshot.model, "model-one");
  // From another folder the run does not exist.
  const elsewhere = `${sandbox.root}/elsewhere`;
  await Deno.mkdir(elsewhere);
  const refused = await sandbox.run([
    "tasks",
    "resume",
    d0,
    "Review it again.",
    "--provider",
    "scripted",
    "--script",
    script,
  ], { cwd: elsewhere });
  assert.equal(refused.code, 1);
  assert.ok(
    refused.stderr.includes(`Cannot resume "${d0}": session not found in this workspace.`),
    refused.stderr,
  );
});

Deno.test("resume refuses a running source, and a source whose restart recovery failed; leases keep a live session to itself", async () => {
  await using sandbox = await bladeSandbox();
  const slow = await writeScript(sandbox, "slow", {
    agents: {
      main: [{
        repeat_last: true,
        turns: [
          { tool_calls: [call({ subagent_type: "general-purpose" })] },
          { text: "x", delay_ms: 60_000 },
        ],
      }],
      "general-purpose": [{ turns: [{ text: "never", delay_ms: 60_000 }] }],
    },
  });
  const blade = await sandbox.spawn(scriptedArgs(slow, "Start it."), { processGroup: true });
  let s0 = "";
  const resumeS0 = () =>
    sandbox.run([
      "tasks",
      "resume",
      s0,
      "Continue it now.",
      "--provider",
      "scripted",
      "--script",
      slow,
    ]);
  const childTranscript = async () => {
    s0 = (await sidecarFiles(sandbox)).records[0]?.id ?? "";
    return s0 === "" ? "" : (await transcripts(sandbox)).get(`${s0}.jsonl`) ?? "";
  };
  await until("the child mid-turn", async () => /"turn_started"/.test(await childTranscript()));
  const running = await resumeS0();
  assert.equal(running.code, 1);
  assert.ok(
    running.stderr.includes(
      `Cannot resume "${s0}": it is still running; wait for it or stop it with TaskStop.`,
    ),
    running.stderr,
  );
  // The live session's lease: a second runner of the same session fails fast, writing nothing.
  const session = (await mainSessionId(sandbox))!;
  const parentBefore = (await transcripts(sandbox)).get(`${session}.jsonl`);
  const second = await sandbox.run(scriptedArgs(slow, "Me too.", ["--resume", session]));
  assert.equal(second.code, 1);
  assert.match(
    second.stdout + second.stderr,
    new RegExp(`session ${session} is in use by process ${blade.pid}`),
  );
  assert.equal((await transcripts(sandbox)).get(`${session}.jsonl`), parentBefore);
  await killGroup(blade);
  // The child's history is lost (its transcript removed): recovery fails, and resume is refused.
  await Deno.remove(`${sandbox.storage}/projects/${projectFolderName(sandbox.workspace)}/${s0}.jsonl`);
  const recover = await sandbox.run(["tasks", "recover", "--json"]);
  assert.equal(recover.code, 0, recover.stderr);
  assert.deepEqual(JSON.parse(recover.stdout).recovered, [{
    id: s0,
    reason: "owner_dead",
    outcome: "failed",
  }]);
  const again = await sandbox.run(["tasks", "recover", "--json"]);
  assert.deepEqual(JSON.parse(again.stdout).recovered, []);
  const refused = await resumeS0();
  assert.equal(refused.code, 1);
  assert.ok(
    refused.stderr.includes(
      `Cannot resume "${s0}": its restart recovery failed, so its history cannot be trusted`,
    ),
    refused.stderr,
  );
});

Deno.test("tasks resume --background: returns at once with the new id; the detached run resumes, is followed and ends", async () => {
  await using sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "bg", {
    agents: {
      main: [{
        turns: [{
          tool_calls: [call({ subagent_type: "general-purpose" })],
        }, {
          text: "first done",
        }],
      }],
      "general-purpose": [{
        repeat_last: true,
        turns: [{ text: "answer to: {{last_user}}", delay_ms: 300 }],
      }],
    },
  });
  const first = await sandbox.run(scriptedArgs(script, "Start it."));
  assert.equal(first.code, 0, first.stderr);
  const bg0 = (await sidecarFiles(sandbox)).records[0]!.id;
  const sourcePath = `${sandbox.storage}/agents/sessions/${bg0}.json`;
  const sourceBefore = await Deno.readTextFile(sourcePath);
  const started = await sandbox.run([
    "tasks",
    "resume",
    bg0,
    "Continue with the rest.",
    "--background",
    "--provider",
    "scripted",
    "--script",
    script,
    "--json",
  ]);
  assert.equal(started.code, 0, started.stderr);
  const json = parseJsonResult(started) as { agent_id: string; status: string; pid: number };
  assert.equal(json.status, "running");
  assert.notEqual(json.agent_id, bg0);
  const output = await sandbox.run(["tasks", "output", json.agent_id, "--wait", "--timeout", "20", "--json"]);
  assert.equal(output.code, 0, output.stderr);
  const got = JSON.parse(output.stdout) as Record<string, unknown>;
  assert.deepEqual([got.status, got.background, got.resumedFrom, got.rootAgentId, got.resumeDepth], [
    "completed",
    true,
    bg0,
    bg0,
    1,
  ]);
  assert.deepEqual(got.result, { success: true, message: "answer to: Continue with the rest." });
  const record = (await sidecarFiles(sandbox)).records.find((r) => r.id === json.agent_id);
  assert.deepEqual([record?.status, record?.resumedFrom, record?.processId], [
    "completed",
    bg0,
    undefined,
  ]);
  assert.equal(await Deno.readTextFile(sourcePath), sourceBefore, "the source is never written");
  // It ran under the source's owner: continuing that session delivers its completion notice once.
  const session = (await mainSessionId(sandbox))!;
  const calm = await writeScript(sandbox, "calm", {
    agents: { main: [{ repeat_last: true, turns: [{ text: "noted" }] }] },
  });
  for (const prompt of ["Anything new?", "And now?"]) {
    const again = await sandbox.run(scriptedArgs(calm, prompt, ["--resume", session]));
    assert.equal(again.code, 0, again.stderr);
  }
  const parent = (await transcripts(sandbox)).get(`${session}.jsonl`) ?? "";
  assert.equal(receipts(parent).get(`background-subagent-completion:${json.agent_id}`), 1);
  // The detached process ends once its run has.
  await until("the detached process to end", async () => {
    const ps = await new Deno.Command("ps", { args: ["-o", "pid=", "-p", String(json.pid)], stdout: "piped" })
      .output();
    return new TextDecoder().decode(ps.stdout).trim() === "";
  });
});
