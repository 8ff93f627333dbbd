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

Deno.test("resume chain: depths 0/1/2 under one root, sources byte-identical, wrong type and unknown id refused", async () => {
  await using sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "chain", {
    agents: {
      main: [{
        turns: [
          { tool_calls: [call({ subagent_type: "general-purpose", subagent_session_id: "agent-r0" })] },
          { tool_calls: [call({ resume_from: "agent-r0", subagent_session_id: "agent-r1" })] },
          { tool_calls: [call({ resume: "agent-r1", subagent_session_id: "agent-r2" })] },
          {
            tool_calls: [
              call({ resume_from: "agent-r2", subagent_type: "Explore", subagent_session_id: "agent-bad" }),
            ],
          },
          { tool_calls: [call({ resume_from: "agent-none", subagent_session_id: "agent-bad2" })] },
          { tool_calls: [call({ resume_from: "agent-r2", subagent_session_id: "agent-r2" })] },
          { text: "chain done" },
        ],
      }],
      "general-purpose": [{ repeat_last: true, turns: [{ text: "step answer" }] }],
    },
  });
  const run = await sandbox.run(scriptedArgs(script, "Run the chain."));
  assert.equal(run.code, 0, run.stderr);
  const { records } = await sidecarFiles(sandbox);
  const byId = new Map(records.map((r) => [r.id, r]));
  assert.deepEqual(
    ["agent-r0", "agent-r1", "agent-r2"].map((id) => {
      const r = byId.get(id)!;
      return [r.id, r.rootAgentId, r.resumedFrom ?? null, r.resumeDepth, r.status, r.messages.length];
    }),
    [
      ["agent-r0", "agent-r0", null, 0, "completed", 2],
      ["agent-r1", "agent-r0", "agent-r0", 1, "completed", 4],
      ["agent-r2", "agent-r0", "agent-r1", 2, "completed", 6],
    ],
  );
  assert.equal(byId.has("agent-bad"), false);
  assert.equal(byId.has("agent-bad2"), false);
  const session = (await mainSessionId(sandbox))!;
  const results = parseTranscript((await transcripts(sandbox)).get(`${session}.jsonl`)!).events
    .flatMap((e) =>
      e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part.content] : []
    );
  assert.match(results[1]!, /resumed_from: agent-r0, root_agent_id: agent-r0, resume_depth: 1/);
  assert.match(results[2]!, /resumed_from: agent-r1, root_agent_id: agent-r0, resume_depth: 2/);
  assert.match(
    results[3]!,
    /Cannot resume "agent-r2" with subagent_type "Explore": source agent used "general-purpose"\.\nagentId: agent-bad/,
  );
  assert.match(results[4]!, /Cannot resume "agent-none": session not found in this workspace\./);
  assert.match(results[5]!, /Cannot resume "agent-r2": the new run needs its own id/);
  // Sources are never written: resuming agent-r2 again leaves every existing file as it was.
  const dir = `${sandbox.storage}/agents/sessions`;
  const before = await Promise.all(
    ["agent-r0", "agent-r1", "agent-r2"].map((id) => Deno.readTextFile(`${dir}/${id}.json`)),
  );
  const cli = await sandbox.run([
    "tasks",
    "resume",
    "agent-r2",
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
    { resumed_from: "agent-r2", root_agent_id: "agent-r0", resume_depth: 3 },
  );
  const after = await Promise.all(
    ["agent-r0", "agent-r1", "agent-r2"].map((id) => Deno.readTextFile(`${dir}/${id}.json`)),
  );
  assert.deepEqual(after, before);
  // `blade tasks output` shows the lineage.
  const output = await sandbox.run(["tasks", "output", "agent-r2"]);
  assert.match(output.stdout, /resumed_from: agent-r1, root_agent_id: agent-r0, resume_depth: 2/);
});

Deno.test("resume keeps the frozen configuration when the agent's definition changed; another folder is refused", async () => {
  await using sandbox = await bladeSandbox();
  const agents = (prompt: string, model: string) =>
    JSON.stringify({ reviewer: { description: "Reviews", prompt, model, tools: ["Read"] } });
  const script = await writeScript(sandbox, "def", {
    agents: {
      main: [{
        turns: [{ tool_calls: [call({ subagent_type: "reviewer", subagent_session_id: "agent-d0" })] }, {
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
  const resumed = await sandbox.run([
    "tasks",
    "resume",
    "agent-d0",
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
  const source = records.find((r) => r.id === "agent-d0")!;
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
    "agent-d0",
    "Review it again.",
    "--provider",
    "scripted",
    "--script",
    script,
  ], { cwd: elsewhere });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Cannot resume "agent-d0": session not found in this workspace\./);
});

Deno.test("resume refuses a running source, and a source whose restart recovery failed; leases keep a live session to itself", async () => {
  await using sandbox = await bladeSandbox();
  const slow = await writeScript(sandbox, "slow", {
    agents: {
      main: [{
        repeat_last: true,
        turns: [
          { tool_calls: [call({ subagent_type: "general-purpose", subagent_session_id: "agent-s0" })] },
          { text: "x", delay_ms: 60_000 },
        ],
      }],
      "general-purpose": [{ turns: [{ text: "never", delay_ms: 60_000 }] }],
    },
  });
  const blade = await sandbox.spawn(scriptedArgs(slow, "Start it."), { processGroup: true });
  const resumeS0 = () =>
    sandbox.run([
      "tasks",
      "resume",
      "agent-s0",
      "Continue it now.",
      "--provider",
      "scripted",
      "--script",
      slow,
    ]);
  const childTranscript = async () => (await transcripts(sandbox)).get("agent-s0.jsonl") ?? "";
  await until("the child mid-turn", async () => /"turn_started"/.test(await childTranscript()));
  const running = await resumeS0();
  assert.equal(running.code, 1);
  assert.match(
    running.stderr,
    /Cannot resume "agent-s0": it is still running; wait for it or stop it with TaskStop\./,
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
  await Deno.remove(`${sandbox.storage}/projects/${projectFolderName(sandbox.workspace)}/agent-s0.jsonl`);
  const recover = await sandbox.run(["tasks", "recover", "--json"]);
  assert.equal(recover.code, 0, recover.stderr);
  assert.deepEqual(JSON.parse(recover.stdout).recovered, [{
    id: "agent-s0",
    reason: "owner_dead",
    outcome: "failed",
  }]);
  const again = await sandbox.run(["tasks", "recover", "--json"]);
  assert.deepEqual(JSON.parse(again.stdout).recovered, []);
  const refused = await resumeS0();
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /Cannot resume "agent-s0": its restart recovery failed, so its history cannot be trusted/,
  );
});

Deno.test("tasks resume --background: returns at once with the new id; the detached run resumes, is followed and ends", async () => {
  await using sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "bg", {
    agents: {
      main: [{
        turns: [{
          tool_calls: [call({ subagent_type: "general-purpose", subagent_session_id: "agent-bg0" })],
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
  const sourcePath = `${sandbox.storage}/agents/sessions/agent-bg0.json`;
  const sourceBefore = await Deno.readTextFile(sourcePath);
  const started = await sandbox.run([
    "tasks",
    "resume",
    "agent-bg0",
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
  assert.notEqual(json.agent_id, "agent-bg0");
  const output = await sandbox.run(["tasks", "output", json.agent_id, "--wait", "--timeout", "20", "--json"]);
  assert.equal(output.code, 0, output.stderr);
  const got = JSON.parse(output.stdout) as Record<string, unknown>;
  assert.deepEqual([got.status, got.background, got.resumedFrom, got.rootAgentId, got.resumeDepth], [
    "completed",
    true,
    "agent-bg0",
    "agent-bg0",
    1,
  ]);
  assert.deepEqual(got.result, { success: true, message: "answer to: Continue with the rest." });
  const record = (await sidecarFiles(sandbox)).records.find((r) => r.id === json.agent_id);
  assert.deepEqual([record?.status, record?.resumedFrom, record?.processId], [
    "completed",
    "agent-bg0",
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
