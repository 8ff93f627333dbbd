// End-to-end: children run in Deno Workers under their own permission set (docs/reference/permissions.md), through the real
// `blade -p` CLI and the scripted provider. The Read tool allows reads anywhere, so when a child's read
// outside its grant fails with NotCapable, Deno refused it; the same run with BLADE_CHILD_SANDBOX=none
// (children in Blade's main thread) succeeds, which shows the difference is the Worker's grant. Also:
// in-grant work succeeds in the Worker (reads, a read-only child's own transcript, a yolo child's
// shell), nested delegation is proxied to the main thread, and sibling children run side by side.

import assert from "node:assert/strict";
import type { TranscriptEvent } from "../lib/protocol/events.ts";
import type { ToolResultBlock } from "../lib/protocol/messages.ts";
import {
  type BladeSandbox,
  bladeSandbox,
  parseJsonResult,
  readSidecars,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

function task(subagentType: string, description: string, prompt: string) {
  return { name: "Task", input: { subagent_type: subagentType, description, prompt } };
}

/** A parent that delegates `calls` in one response, then ends with the children's answers. */
function parentTurns(...calls: ReturnType<typeof task>[]) {
  return [{ turns: [{ tool_calls: calls }, { text: "Children said: {{last_user}}" }] }];
}

function toolResultsIn(events: TranscriptEvent[]): ToolResultBlock[] {
  return events.flatMap((e) =>
    e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part] : []
  );
}

const READER = {
  reader: {
    description: "Reads files and reports them",
    prompt: "You read the files you are asked about.",
    tools: ["Glob", "Grep", "Read"],
  },
};

/** A temp folder outside the workspace and the storage root, with one file; removed on dispose. */
async function outsideFile(text: string): Promise<AsyncDisposable & { path: string }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-outside-" }));
  const path = `${dir}/secret.txt`;
  await Deno.writeTextFile(path, text);
  return { path, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/**
 * A rule approving reads of `file`'s folder, so the permission gate lets the call through and the
 * child's Deno grant is what refuses it (docs/guides/permissions.md "Reads outside the workspace").
 */
function allowOutside(file: string): string[] {
  return ["--allowed-tools", `Read(/${file.slice(0, file.lastIndexOf("/"))})`];
}

/** Runs the reader child (outside read, then in-workspace read) and returns its record and results. */
async function readOutsideAndInside(sandbox: BladeSandbox, outside: string, env?: Record<string, string>) {
  await sandbox.write("inside.txt", "inside text\n");
  const run = await runScripted(sandbox, {
    agents: {
      main: parentTurns(task("reader", "Read two files", "Read the two files you are given.")),
      reader: [{
        turns: [
          {
            tool_calls: [
              { name: "Read", input: { file_path: outside } },
              { name: "Read", input: { file_path: "inside.txt" } },
            ],
          },
          { text: "Read both." },
        ],
      }],
    },
  }, {
    flags: ["--agents", JSON.stringify(READER), ...allowOutside(outside)],
    ...(env === undefined ? {} : { env }),
  });
  assert.equal(run.code, 0, run.stderr);
  const [record, ...others] = await readSidecars(sandbox.storage);
  assert.ok(record !== undefined);
  assert.deepEqual(others, []);
  const events = await transcriptEvents(transcriptPath(sandbox, record.id));
  const [outsideResult, insideResult] = toolResultsIn(events);
  assert.ok(outsideResult !== undefined && insideResult !== undefined, JSON.stringify(events));
  return { sessionId: String(parseJsonResult(run).session_id), record, events, outsideResult, insideResult };
}

Deno.test("sandbox: a child's read outside its grant fails with NotCapable in the Worker, not in-process", async () => {
  await using outside = await outsideFile("outside secret\n");
  {
    await using sandbox = await bladeSandbox();
    const { sessionId, record, events, outsideResult, insideResult } = await readOutsideAndInside(
      sandbox,
      outside.path,
    );
    assert.equal(outsideResult.isError, true, outsideResult.content);
    assert.match(outsideResult.content, /NotCapable|Requires read access/);
    assert.ok(!outsideResult.content.includes("outside secret"));
    // Inside its grant the same child reads fine, and it writes its own transcript although it is
    // read-only: the transcript folder is its only write grant.
    assert.equal(insideResult.isError, false, insideResult.content);
    assert.match(insideResult.content, /inside text/);
    assert.deepEqual([events[0]?.type, events[0]?.data], ["session_created", {
      agentType: "reader",
      model: "scripted",
      parentSessionId: sessionId,
      relation: "subagent",
      lineage: { rootAgentId: record.id, resumeDepth: 0 },
      depth: 1,
    }]);
    assert.equal(events.at(-1)?.type, "turn_completed");
    assert.equal(record.status, "completed");
  }
  {
    // The control: the same run with children in Blade's own thread (full read) reads the file.
    await using sandbox = await bladeSandbox();
    const { outsideResult } = await readOutsideAndInside(sandbox, outside.path, {
      BLADE_CHILD_SANDBOX: "none",
    });
    assert.equal(outsideResult.isError, false, outsideResult.content);
    assert.match(outsideResult.content, /outside secret/);
  }
});

Deno.test("sandbox: a trusted yolo child with Bash runs a shell command that writes its workspace", async () => {
  await using sandbox = await bladeSandbox();
  const agents = {
    shell: {
      description: "Runs shell commands",
      prompt: "You run the commands you are given.",
      tools: ["Bash"],
      permissionMode: "yolo",
    },
  };
  const run = await runScripted(sandbox, {
    agents: {
      main: parentTurns(task("shell", "Write a file", "Write hi into out.txt with the shell.")),
      shell: [{
        turns: [{ tool_calls: [{ name: "Bash", input: { command: "echo hi > out.txt" } }] }, {
          text: "Wrote it.",
        }],
      }],
    },
    // The parent must be yolo too: a child never runs in a wider mode than its parent.
  }, { flags: ["--agents", JSON.stringify(agents), "--trust-workspace", "--permission-mode", "yolo"] });
  assert.equal(run.code, 0, run.stderr);
  const [record] = await readSidecars(sandbox.storage);
  assert.ok(record !== undefined);
  assert.equal(record.configSnapshot.permissionMode, "yolo");
  const [result] = toolResultsIn(await transcriptEvents(transcriptPath(sandbox, record.id)));
  assert.equal(result?.isError, false, result?.content);
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/out.txt`), "hi\n");
  assert.equal(record.status, "completed");
});

Deno.test("sandbox: a child in a Worker delegates further through the main thread (nested Task)", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("notes.md", "# notes\n");
  const agents = {
    delegator: {
      description: "Hands searches to an explorer",
      prompt: "You delegate searches to Explore.",
      // Explore's Glob must be among the delegator's own tools (the capability ceiling).
      tools: ["Task", "Read", "Glob"],
    },
  };
  const run = await runScripted(sandbox, {
    agents: {
      main: parentTurns(task("delegator", "A: delegate", "Get the notes file found by an explorer.")),
      delegator: [{
        turns: [
          { tool_calls: [task("Explore", "B: find notes", "Find the Markdown notes in the workspace.")] },
          { text: "Explore said: {{last_user}}" },
        ],
      }],
      Explore: [{
        turns: [{ tool_calls: [{ name: "Glob", input: { pattern: "*.md" } }] }, {
          text: "Found {{last_user}}",
        }],
      }],
    },
  }, { flags: ["--agents", JSON.stringify(agents)] });
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  assert.match(String(result.result), /Explore said: Found .*notes\.md/);

  const [child, grandchild, ...others] = await readSidecars(sandbox.storage);
  assert.ok(child !== undefined && grandchild !== undefined);
  assert.deepEqual(others, []);
  assert.deepEqual(
    [child.subagentType, child.status, child.parentSessionId],
    ["delegator", "completed", String(result.session_id)],
  );
  assert.deepEqual(
    [grandchild.subagentType, grandchild.status, grandchild.parentSessionId],
    ["Explore", "completed", child.id],
  );
  const created = (await transcriptEvents(transcriptPath(sandbox, grandchild.id)))[0];
  assert.ok(created?.type === "session_created", JSON.stringify(created));
  assert.deepEqual([created.data.parentSessionId, created.data.relation, created.data.depth], [
    child.id,
    "subagent",
    2,
  ]);
});

Deno.test("sandbox: three children of one type started in one response all complete in the Worker", async () => {
  await using sandbox = await bladeSandbox();
  for (const n of [1, 2, 3]) await sandbox.write(`file${n}.txt`, `content ${n}\n`);
  const run = await runScripted(sandbox, {
    agents: {
      main: parentTurns(
        ...[1, 2, 3].map((n) => task("reader", `Read file ${n}`, `Read file${n}.txt and report it.`)),
      ),
      reader: [{
        turns: [
          {
            tool_calls: [{ name: "Read", input: { file_path: "{{match:(file\\d\\.txt)}}" } }],
            delay_ms: 200,
          },
          { text: "{{last_user}}" },
        ],
      }],
    },
  }, { flags: ["--agents", JSON.stringify(READER)], env: { BLADE_CHILD_SANDBOX: "worker" } });
  assert.equal(run.code, 0, run.stderr);
  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => [r.description, r.status]), [
    ["Read file 1", "completed"],
    ["Read file 2", "completed"],
    ["Read file 3", "completed"],
  ]);
  records.forEach((r, i) => assert.match(r.result.message, new RegExp(`content ${i + 1}`)));
});

Deno.test("sandbox: a child's Read through a workspace symlink pointing outside its grant is refused", async () => {
  await using outside = await outsideFile("outside secret via link\n");
  await using sandbox = await bladeSandbox();
  await Deno.symlink(outside.path.slice(0, outside.path.lastIndexOf("/")), `${sandbox.workspace}/outlink`);
  const run = await runScripted(sandbox, {
    agents: {
      main: parentTurns(task("reader", "Read a link", "Read the linked file you are given.")),
      reader: [{
        turns: [
          {
            tool_calls: [
              { name: "Read", input: { file_path: "outlink/secret.txt" } },
              { name: "Grep", input: { pattern: "secret", path: "outlink" } },
            ],
          },
          { text: "Tried." },
        ],
      }],
    },
  }, { flags: ["--agents", JSON.stringify(READER), ...allowOutside(outside.path)] });
  assert.equal(run.code, 0, run.stderr);
  const [record] = await readSidecars(sandbox.storage);
  const [read, grep] = toolResultsIn(await transcriptEvents(transcriptPath(sandbox, record!.id)));
  for (const result of [read!, grep!]) {
    assert.equal(result.isError, true, result.content);
    assert.match(result.content, /is outside this agent's access/);
    assert.ok(!result.content.includes("outside secret via link"));
  }
});

Deno.test("sandbox: a child's Grep and Glob over its workspace do not follow a file symlink out of it", async () => {
  await using outside = await outsideFile("outside secret via file link\n");
  await using sandbox = await bladeSandbox();
  await sandbox.write("inside.txt", "inside secret\n");
  await Deno.symlink(outside.path, `${sandbox.workspace}/leak.txt`);
  const run = await runScripted(sandbox, {
    agents: {
      main: parentTurns(task("reader", "Search", "Search the workspace.")),
      reader: [{
        turns: [
          {
            tool_calls: [
              { name: "Grep", input: { pattern: "secret", output_mode: "content" } },
              { name: "Glob", input: { pattern: "*.txt" } },
            ],
          },
          { text: "Searched." },
        ],
      }],
    },
  }, { flags: ["--agents", JSON.stringify(READER)] });
  assert.equal(run.code, 0, run.stderr);
  const [record] = await readSidecars(sandbox.storage);
  const [grep, glob] = toolResultsIn(await transcriptEvents(transcriptPath(sandbox, record!.id)));
  assert.match(grep!.content, /inside\.txt:1:inside secret/);
  assert.ok(!grep!.content.includes("outside secret"), grep!.content);
  assert.ok(!glob!.content.split("\n")[0]!.includes("leak.txt"), glob!.content);
  // Grep passes over every symlink (rg --no-follow, docs/reference/tools.md); Glob says which it did not follow.
  assert.equal(grep!.isError, false, grep!.content);
  assert.ok(!grep!.content.includes("leak.txt"), grep!.content);
  assert.equal(glob!.isError, false, glob!.content);
  assert.ok(
    glob!.content.includes(`Not followed: 1 symbolic link leading outside the workspace (leak.txt -> `),
  );
});
