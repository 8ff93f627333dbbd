// End-to-end: a child's rules narrow its OS layers, not only its permission gate (docs/reference/
// permissions.md "Rules narrow the OS layers"). An agent limited to `Edit(docs/**)` whose commands the
// gate allows (`--allowed-tools Bash`) still cannot write outside docs/: bubblewrap binds only docs/
// writable, and a folder a deny rule names read-only, so `echo x > src/a.ts` fails in the OS and the
// result names the rule. The Worker the child runs in gets a Deno write grant over docs/ only: a real
// Worker under the very permission set Blade computes is refused a write to src/ (Deno.permissions
// says "denied", the write throws), whatever a gate would have let through. Skipped, with a message,
// where bubblewrap cannot run (the Worker test runs everywhere).

import assert from "node:assert/strict";
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
import { osSandbox } from "../lib/sys/os_sandbox.ts";
import { permissionsForChild } from "../lib/child/child_sandbox.ts";
import { toWorkerPermissions } from "../lib/permissions/deno_permissions.ts";
import { storageLayout } from "../lib/config/storage.ts";
import type { ChildSpec } from "../lib/executor/child.ts";

const BWRAP = (await osSandbox()) === "bwrap";
if (!BWRAP) {
  Deno.test({
    name: "rule sandbox tests skipped: bubblewrap cannot run here (apt-get install bubblewrap)",
    ignore: true,
    fn() {},
  });
}

const LIMITED = {
  description: "Writes the docs",
  prompt: "You write docs.",
  tools: ["Read", "Edit(docs/**)", "Bash"],
};

/** The attacks a child makes: each its own Bash call, then Edit outside docs/ (the gate's layer). */
const ATTACKS = [
  "echo x > src/a.ts",
  "echo ok > docs/a.md",
  "echo x > docs/private/p.md",
  "mkdir -p build && echo x > build/out.txt",
];

function attacker(marker: string) {
  return [{
    turns: [
      {
        tool_calls: [
          ...ATTACKS.map((command) => ({
            name: "Bash",
            input: { command: command.replaceAll("x", marker) },
          })),
          { name: "Edit", input: { file_path: "src/app.ts", old_string: "app", new_string: marker } },
        ],
      },
      { text: "done" },
    ],
  }];
}

function toolResults(events: Awaited<ReturnType<typeof transcriptEvents>>): ToolResultBlock[] {
  return events.flatMap((e) =>
    e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part] : []
  );
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

/** Runs the attacks from a `docs-writer` agent with `tools`; its tool results. */
async function attack(sandbox: BladeSandbox, tools: string[], marker: string): Promise<ToolResultBlock[]> {
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [{
          tool_calls: [{
            name: "Task",
            input: { subagent_type: "docs-writer", description: "Docs", prompt: "Write docs." },
          }],
        }, { text: "done" }],
      }],
      "docs-writer": attacker(marker),
    },
  }, {
    flags: [
      "--trust-workspace",
      "--allowed-tools",
      "Bash Read",
      "--disallowed-tools",
      "Edit(docs/private/**)",
      "--agents",
      JSON.stringify({ "docs-writer": { ...LIMITED, tools } }),
    ],
  });
  assert.equal(run.code, 0, run.stderr);
  parseJsonResult(run);
  const record = (await readSidecars(sandbox.storage)).find((r) =>
    r.prompt === "Write docs." && !seen.has(r.id)
  );
  assert.ok(record !== undefined, run.stdout);
  seen.add(record.id);
  return toolResults(await transcriptEvents(transcriptPath(sandbox, record.id)));
}

const seen = new Set<string>();

Deno.test({
  name: "rule sandbox: an Edit(docs/**) agent's allowed Bash cannot write outside docs/ or a denied folder",
  ignore: !BWRAP,
  async fn() {
    await using sandbox = await bladeSandbox();
    const ws = sandbox.workspace;
    await sandbox.write("src/app.ts", "export const app = 1;\n");
    await sandbox.write("docs/private/keep.md", "private\n");
    const [src, docs, privateDocs, build, edit] = await attack(sandbox, LIMITED.tools, "limited");
    // (a) The gate allowed the command (an allow rule for Bash); the OS refused it, and says which rule.
    assert.equal(src!.isError, true, src!.content);
    assert.match(src!.content, /Read-only file system/);
    assert.match(src!.content, /writes are limited to docs\/ by the tools rule Edit\(docs\/\*\*\)/);
    assert.equal(await Deno.readTextFile(`${ws}/src/app.ts`), "export const app = 1;\n");
    assert.equal(await exists(`${ws}/src/a.ts`), false, "src/a.ts was written");
    assert.equal(await exists(`${ws}/build`), false, "build/ was made");
    assert.equal(build!.isError, true, build!.content);
    // Inside docs/ it writes; a deny rule's folder is read-only even there.
    assert.equal(docs!.isError, false, docs!.content);
    assert.equal(await Deno.readTextFile(`${ws}/docs/a.md`), "ok\n");
    assert.equal(privateDocs!.isError, true, privateDocs!.content);
    assert.match(privateDocs!.content, /Read-only file system[\s\S]*Edit\(docs\/private\/\*\*\)/);
    assert.equal(await exists(`${ws}/docs/private/p.md`), false, "docs/private/p.md was written");
    // The Edit tool outside docs/ is the gate's refusal (the first layer), naming the limit.
    assert.match(edit!.content, /outside the tools this agent[\s\S]*Edit\(docs\/\*\*\)/);

    // The control: the same agent without the limit writes src/ and build/; the deny rule alone still
    // holds docs/private/ in the OS sandbox.
    const [cSrc, , cPrivate, cBuild] = await attack(sandbox, ["Read", "Edit", "Bash"], "control");
    assert.equal(cSrc!.isError, false, cSrc!.content);
    assert.equal(await Deno.readTextFile(`${ws}/src/a.ts`), "control\n");
    assert.equal(cBuild!.isError, false, cBuild!.content);
    assert.equal(cPrivate!.isError, true, cPrivate!.content);
    assert.equal(await exists(`${ws}/docs/private/p.md`), false);
  },
});

Deno.test({
  name: "rule sandbox: an Edit(docs/**) agent in a git worktree writes and commits docs/ only",
  ignore: !BWRAP,
  async fn() {
    await using sandbox = await bladeSandbox();
    const ws = sandbox.workspace;
    await sandbox.write("src/app.ts", "export const app = 1;\n");
    await sandbox.write("docs/index.md", "# Docs\n");
    const git = (...args: string[]) =>
      new Deno.Command("git", { args: ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", ...args] })
        .output();
    await git("init", "--quiet", "-b", "main");
    await git("add", "-A");
    await git("commit", "--quiet", "-m", "initial");
    const identity = "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t";
    const run = await runScripted(sandbox, {
      agents: {
        main: [{
          turns: [{
            tool_calls: [{
              name: "Task",
              input: {
                subagent_type: "docs-writer",
                description: "Docs",
                prompt: "Write the docs.",
                isolation: "worktree",
              },
            }],
          }, { text: "done" }],
        }],
        "docs-writer": [{
          turns: [{
            tool_calls: [
              { name: "Bash", input: { command: "echo x > src/a.ts" } },
              {
                name: "Bash",
                input: {
                  command: `echo ok > docs/a.md && git add docs/a.md && ${identity} git commit -qm docs`,
                },
              },
            ],
          }, { text: "done" }],
        }],
      },
    }, {
      flags: [
        "--trust-workspace",
        "--allowed-tools",
        "Bash Read",
        "--agents",
        JSON.stringify({ "docs-writer": LIMITED }),
      ],
    });
    assert.equal(run.code, 0, run.stderr);
    const [record] = await readSidecars(sandbox.storage);
    const mainResults = toolResults(
      await transcriptEvents(transcriptPath(sandbox, String(parseJsonResult(run).session_id))),
    );
    assert.ok(record !== undefined, JSON.stringify(mainResults));
    const [src, docs] = toolResults(await transcriptEvents(transcriptPath(sandbox, record.id)));
    assert.equal(src!.isError, true, src!.content);
    assert.match(src!.content, /Read-only file system[\s\S]*Edit\(docs\/\*\*\)/);
    assert.equal(docs!.isError, false, docs!.content);
    // The commit landed on the worktree's branch; the parent checkout is untouched.
    const log = new TextDecoder().decode((await git("log", "--all", "--format=%s")).stdout);
    assert.match(log, /^docs$/m, log);
    assert.equal(await exists(`${ws}/src/a.ts`), false);
    assert.equal(await exists(`${ws}/docs/a.md`), false);
  },
});

/** A Worker module that asks Deno about writes and tries them, then posts what happened. */
const PROBE = `
self.onmessage = async (e) => {
  const out = {};
  for (const path of e.data) {
    const state = (await Deno.permissions.query({ name: "write", path })).state;
    let wrote;
    try { await Deno.writeTextFile(path, "probe"); wrote = "written"; } catch (err) { wrote = err.name; }
    out[path] = (state === "granted" ? "granted " : "not granted ") + wrote;
  }
  self.postMessage(out);
};
`;

Deno.test("rule sandbox: the Worker of an Edit(docs/**) agent is refused by Deno a write outside docs/", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-rule-worker-" }));
  const ws = `${root}/ws`;
  const storage = `${root}/storage`;
  try {
    for (const dir of ["src", "docs", "docs/private"]) await Deno.mkdir(`${ws}/${dir}`, { recursive: true });
    const probe = `${root}/probe.js`;
    await Deno.writeTextFile(probe, PROBE);
    const spec = (tools: string[]): ChildSpec => ({
      id: "agent-probe",
      subagentType: "docs-writer",
      description: "probe",
      prompt: "probe",
      config: {
        name: "docs-writer",
        description: "Writes the docs",
        systemPrompt: "You write docs.",
        tools,
        disallowedTools: [],
        model: "scripted",
        permissionMode: "yolo",
        maxTurns: 1,
        skills: [],
        isolation: "none",
        source: "test",
      },
      parentSessionId: "parent",
      parentProjectPath: ws,
      workspaceRoot: ws,
      trusted: true,
      depth: 1,
      lineage: { rootAgentId: "agent-probe", resumeDepth: 0 },
      rules: { allow: ["Bash"], deny: ["Edit(docs/private/**)"], ask: [] },
    });
    const attempt = async (tools: string[]) => {
      const set = permissionsForChild({
        spec: spec(tools),
        toolNames: ["Read", "Edit", "Bash"],
        provider: { kind: "scripted", script: { agents: {} } },
        storageRoot: storage,
        transcriptDir: storageLayout(storage).projectDir(ws),
        extraReadDirs: [root],
        maxTokens: 1,
        platform: Deno.build.os,
        secrets: [],
        delegation: false,
        onEvent: () => {},
        onCall: () => Promise.reject(new Error("no calls")),
      });
      const worker = new Worker(new URL(`file://${probe}`), {
        type: "module",
        deno: { permissions: toWorkerPermissions(set) },
      });
      try {
        const answer = new Promise<Record<string, string>>((resolve, reject) => {
          worker.onmessage = (e) => resolve(e.data);
          worker.onerror = (e) => reject(new Error(e.message));
        });
        worker.postMessage([`${ws}/src/a.ts`, `${ws}/docs/a.md`, `${ws}/build.txt`]);
        return { set, seen: await answer };
      } finally {
        worker.terminate();
      }
    };
    const limited = await attempt(["Read", "Edit(docs/**)", "Bash"]);
    assert.deepEqual(limited.set.write, [
      `${ws}/docs`,
      `${storage}/agents/sessions`,
      `${storage}/projects`,
      `${storage}/worktrees`,
    ]);
    assert.deepEqual(limited.seen, {
      [`${ws}/src/a.ts`]: "not granted NotCapable",
      [`${ws}/docs/a.md`]: "granted written",
      [`${ws}/build.txt`]: "not granted NotCapable",
    });
    assert.equal(await exists(`${ws}/src/a.ts`), false);
    // The control: the same agent without the limit gets the whole workspace.
    const whole = await attempt(["Read", "Edit", "Bash"]);
    assert.equal(whole.seen[`${ws}/src/a.ts`], "granted written");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
