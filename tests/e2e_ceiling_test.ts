// End-to-end: the capability ceiling through the real `blade -p` CLI and the scripted provider
// (docs/guides/permissions.md). A child never has more than its parent: an agent file asking for
// bypassPermissions under a plan-mode parent runs in plan mode, one level down too, and a child
// without Write cannot obtain Write by delegating. Each attempt is refused in the tool result, nothing
// is written, and the capping is reported in the child's session_created and the Task result.

import assert from "node:assert/strict";
import type { ToolResultBlock } from "../lib/protocol/messages.ts";
import type { TranscriptEvent } from "../lib/protocol/events.ts";
import {
  type BladeSandbox,
  bladeSandbox,
  parseJsonResult,
  readSidecars,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

const ESCALATOR = `---
name: escalator
description: Tries to do more than its parent may
permissionMode: bypassPermissions
---
You write files and run commands.
`;

/** The escalation attempt every test's last child makes. */
const ATTEMPT = [
  {
    tool_calls: [
      { name: "Write", input: { file_path: "written.txt", content: "x\n" } },
      { name: "Bash", input: { command: "touch ran.txt" } },
    ],
  },
  { text: "Tried." },
];

function task(subagentType: string, prompt: string) {
  return { name: "Task", input: { subagent_type: subagentType, description: "Delegate", prompt } };
}

async function run(sandbox: BladeSandbox, agents: Record<string, unknown>, flags: string[]) {
  const result = await runScripted(sandbox, { agents }, { flags: ["--trust-workspace", ...flags] });
  assert.equal(result.code, 0, result.stderr);
  return parseJsonResult(result);
}

function toolResults(events: TranscriptEvent[]): ToolResultBlock[] {
  return events.flatMap((e) =>
    e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part] : []
  );
}

async function assertNothingHappened(sandbox: BladeSandbox): Promise<void> {
  for (const name of ["written.txt", "ran.txt"]) {
    assert.equal(await Deno.lstat(`${sandbox.workspace}/${name}`).then(() => true, () => false), false, name);
  }
}

Deno.test("ceiling e2e: a bypassPermissions agent under a plan-mode parent runs in plan mode", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write(".claude/agents/escalator.md", ESCALATOR);
  const out = await run(sandbox, {
    main: [{
      turns: [{ tool_calls: [task("escalator", "Escalate now, please.")] }, {
        text: "Parent saw: {{last_user}}",
      }],
    }],
    escalator: [{ turns: ATTEMPT }],
  }, ["--permission-mode", "plan"]);
  const [record] = await readSidecars(sandbox.storage);
  assert.ok(record !== undefined);
  assert.equal(record.configSnapshot.permissionMode, "plan");
  const events = await transcriptEvents(transcriptPath(sandbox, record.id));
  const created = events[0];
  assert.ok(created?.type === "session_created");
  assert.deepEqual(created.data.capped, [
    "permissionMode yolo (bypassPermissions) capped to plan by the parent",
  ]);
  const [write, bash] = toolResults(events);
  assert.match(write!.content, /Permission denied: Write is not available in plan mode/);
  assert.match(bash!.content, /Permission denied: Bash is not available in plan mode/);
  // The parent's Task result says so too.
  assert.match(
    String(out.result),
    /Note: permissionMode yolo \(bypassPermissions\) capped to plan by the parent/,
  );
  await assertNothingHappened(sandbox);
});

Deno.test("ceiling e2e: one level down, a plan-mode child's bypassPermissions grandchild runs in plan mode", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write(".claude/agents/escalator.md", ESCALATOR);
  await run(sandbox, {
    main: [{
      turns: [{ tool_calls: [task("general-purpose", "Delegate this further.")] }, { text: "done" }],
    }],
    "general-purpose": [{
      turns: [{ tool_calls: [task("escalator", "Escalate now, please.")] }, { text: "done" }],
    }],
    escalator: [{ turns: ATTEMPT }],
  }, ["--permission-mode", "plan"]);
  const records = await readSidecars(sandbox.storage);
  const grandchild = records.find((r) => r.subagentType === "escalator");
  assert.ok(grandchild !== undefined);
  assert.equal(grandchild.configSnapshot.permissionMode, "plan");
  const [write, bash] = toolResults(await transcriptEvents(transcriptPath(sandbox, grandchild.id)));
  assert.match(write!.content, /not available in plan mode/);
  assert.match(bash!.content, /not available in plan mode/);
  await assertNothingHappened(sandbox);
});

Deno.test("ceiling e2e: a read-only agent with Task cannot get Write or Bash by delegating", async () => {
  await using sandbox = await bladeSandbox();
  const agents = {
    lookout: {
      description: "Reads and delegates",
      prompt: "You read.",
      tools: ["Read", "Grep", "Glob", "Task"],
    },
  };
  await run(sandbox, {
    main: [{ turns: [{ tool_calls: [task("lookout", "Look around the code.")] }, { text: "done" }] }],
    lookout: [{
      turns: [{ tool_calls: [task("general-purpose", "Write the file for me.")] }, { text: "done" }],
    }],
    "general-purpose": [{ turns: ATTEMPT }],
  }, ["--permission-mode", "yolo", "--agents", JSON.stringify(agents)]);
  const records = await readSidecars(sandbox.storage);
  const grandchild = records.find((r) => r.subagentType === "general-purpose");
  assert.ok(grandchild !== undefined);
  const events = await transcriptEvents(transcriptPath(sandbox, grandchild.id));
  const [write, bash] = toolResults(events);
  assert.match(write!.content, /Unknown tool "Write". Available tools: Read, Glob, Grep, Agent/);
  assert.match(bash!.content, /Unknown tool "Bash"/);
  await assertNothingHappened(sandbox);
});

Deno.test("ceiling e2e: --disallowed-tools Bash removes Bash from children too", async () => {
  await using sandbox = await bladeSandbox();
  await run(sandbox, {
    main: [{ turns: [{ tool_calls: [task("general-purpose", "Run the command now.")] }, { text: "done" }] }],
    "general-purpose": [{ turns: ATTEMPT }],
  }, ["--permission-mode", "yolo", "--disallowed-tools", "Bash"]);
  const [record] = await readSidecars(sandbox.storage);
  const [write, bash] = toolResults(await transcriptEvents(transcriptPath(sandbox, record!.id)));
  assert.equal(write!.isError, false, write!.content);
  assert.match(bash!.content, /Unknown tool "Bash"/);
  assert.equal(await Deno.lstat(`${sandbox.workspace}/ran.txt`).then(() => true, () => false), false);
});

/** main → `agent` (defined by `agents`) → general-purpose, which makes `attempt`; its tool results. */
async function throughAgent(
  sandbox: BladeSandbox,
  agents: Record<string, unknown>,
  attempt: unknown[],
): Promise<ToolResultBlock[]> {
  const [name] = Object.keys(agents);
  await run(sandbox, {
    main: [{ turns: [{ tool_calls: [task(name!, "Do the work below you.")] }, { text: "done" }] }],
    [name!]: [{
      turns: [{ tool_calls: [task("general-purpose", "Do it for me, please.")] }, { text: "done" }],
    }],
    "general-purpose": [{ turns: attempt }],
  }, ["--permission-mode", "yolo", "--agents", JSON.stringify(agents)]);
  const grandchild = (await readSidecars(sandbox.storage)).find((r) => r.subagentType === "general-purpose");
  assert.ok(grandchild !== undefined);
  // Frozen in its record, so a resume keeps them.
  assert.ok(grandchild.configSnapshot.rules !== undefined);
  return toolResults(await transcriptEvents(transcriptPath(sandbox, grandchild.id)));
}

Deno.test("ceiling e2e: an agent limited to Bash(git status:*) cannot have its child run anything else", async () => {
  await using sandbox = await bladeSandbox();
  const results = await throughAgent(sandbox, {
    statuser: { description: "Looks at git", prompt: "You look.", tools: ["Bash(git status:*)", "Task"] },
  }, [{ tool_calls: [{ name: "Bash", input: { command: "touch ran.txt" } }] }, { text: "Tried." }]);
  assert.match(results[0]!.content, /outside the tools .* \(Bash\(git status:\*\)\)/);
  await assertNothingHappened(sandbox);
});

Deno.test("ceiling e2e: an agent's disallowedTools Bash(touch:*) holds for its child", async () => {
  await using sandbox = await bladeSandbox();
  const results = await throughAgent(sandbox, {
    careful: { description: "Never touches", prompt: "You work.", disallowedTools: ["Bash(touch:*)"] },
  }, [{ tool_calls: [{ name: "Bash", input: { command: "touch ran.txt" } }] }, { text: "Tried." }]);
  assert.match(results[0]!.content, /matches the deny rule Bash\(touch:\*\)/);
  await assertNothingHappened(sandbox);
});

Deno.test("ceiling e2e: an agent limited to Edit(docs/**) cannot have its child edit src/app.ts", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("src/app.ts", "export const app = 1;\n");
  await sandbox.write("docs/a.md", "# a\n");
  const results = await throughAgent(sandbox, {
    documenter: {
      description: "Edits docs",
      prompt: "You document.",
      tools: ["Read", "Edit(docs/**)", "Task"],
    },
  }, [
    {
      tool_calls: [
        { name: "Read", input: { file_path: "src/app.ts" } },
        { name: "Read", input: { file_path: "docs/a.md" } },
      ],
    },
    {
      tool_calls: [
        { name: "Edit", input: { file_path: "src/app.ts", old_string: "1", new_string: "2" } },
        { name: "Edit", input: { file_path: "docs/a.md", old_string: "# a", new_string: "# b" } },
      ],
    },
    { text: "Tried." },
  ]);
  assert.match(results[2]!.content, /outside the tools .* \(Edit\(docs\/\*\*\)\)/);
  assert.equal(results[3]!.isError, false, results[3]!.content);
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/src/app.ts`), "export const app = 1;\n");
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/docs/a.md`), "# b\n");
});
