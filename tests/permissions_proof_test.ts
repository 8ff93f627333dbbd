// Proof that Deno itself enforces each child's grant (docs/reference/permissions.md): code inside the child calls Deno APIs
// directly, bypassing every Blade tool and tool filter, and Deno answers NotCapable beyond the grant.
// Runs in a Worker, the mechanism Blade runs children with. The symlink case shows why tools must still resolve paths.

import assert from "node:assert/strict";
import { type ChildPermissionInput, childPermissions } from "../lib/permissions/deno_permissions.ts";
import { startSandbox } from "../lib/child/sandbox.ts";
import type { SandboxMechanism } from "../lib/child/sandbox_protocol.ts";
import { WORKER } from "../lib/child/worker_transport.ts";
import type { ProbeRequest, ProbeResult } from "../lib/testing/probe_child.ts";
import { gitRepo } from "../lib/testing/git_repo.ts";
import { prepareWorktree } from "../lib/worktree/lifecycle.ts";
import { permissionsForChild } from "../lib/child/child_sandbox.ts";
import type { ChildSpec } from "../lib/executor/child.ts";
import { planLaunch } from "../lib/launch/launch_plan.ts";
import { childToolNames } from "../lib/executor/child.ts";
import { RegistrySnapshot } from "../lib/registry/snapshot.ts";
import { agentDefinitionSchema } from "../lib/registry/schema.ts";
import { BLADE_TOOL_NAMES } from "../lib/protocol/tool_rule.ts";

const PROBE = new URL("../lib/testing/probe_child.ts", import.meta.url);
const MECHANISMS: SandboxMechanism[] = [WORKER];
const ALL_TOOLS = ["Read", "Write", "Edit", "Glob", "Grep", "Bash", "Task"];

interface Layout {
  ws: string;
  storage: string;
  outside: string;
}

async function withLayout(fn: (layout: Layout) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-proof-" }));
  const layout = { ws: `${root}/ws`, storage: `${root}/storage`, outside: `${root}/outside` };
  for (const dir of Object.values(layout)) await Deno.mkdir(dir);
  await Deno.writeTextFile(`${layout.ws}/a.txt`, "inside");
  await Deno.writeTextFile(`${layout.outside}/secret.txt`, "outside secret");
  try {
    await fn(layout);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function permissionsFor(layout: Layout, input: Partial<ChildPermissionInput>) {
  return childPermissions({
    trusted: true,
    mode: "default",
    tools: ["Read", "Glob", "Grep"],
    workspaceRoot: layout.ws,
    storageRoot: layout.storage,
    storageReadDirs: [`${layout.storage}/projects/-ws`],
    providerHosts: [],
    envNames: [],
    ...input,
  });
}

/** Runs each request in one fresh child and returns the outcomes. */
async function probe(
  mechanism: SandboxMechanism,
  permissions: ReturnType<typeof childPermissions>,
  requests: ProbeRequest[],
): Promise<ProbeResult[]> {
  await using child = await startSandbox<ProbeRequest, ProbeResult>(PROBE, { mechanism, permissions });
  const results: ProbeResult[] = [];
  for (const request of requests) results.push(await child.request(request));
  return results;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

for (const mechanism of MECHANISMS) {
  Deno.test(`proof (${mechanism.name}): a read-only child cannot write, even calling Deno directly`, async () => {
    await withLayout(async (layout) => {
      const readOnlyTools = permissionsFor(layout, {});
      const planMode = permissionsFor(layout, { tools: ALL_TOOLS, mode: "plan" });
      assert.equal(readOnlyTools.write, false);
      assert.equal(planMode.write, false);
      for (const permissions of [readOnlyTools, planMode]) {
        const [inWorkspace, inStorage, read] = await probe(mechanism, permissions, [
          { op: "write", path: `${layout.ws}/new.txt`, text: "x" },
          { op: "write", path: `${layout.storage}/new.txt`, text: "x" },
          { op: "read", path: `${layout.ws}/a.txt` },
        ]);
        assert.equal(inWorkspace?.outcome, "NotCapable", inWorkspace?.message);
        assert.equal(inStorage?.outcome, "NotCapable", inStorage?.message);
        assert.deepEqual(read, { outcome: "ok", value: "inside" });
      }
      assert.equal(await exists(`${layout.ws}/new.txt`), false);
    });
  });

  Deno.test(`proof (${mechanism.name}): an untrusted workspace's child cannot spawn processes`, async () => {
    await withLayout(async (layout) => {
      const untrusted = permissionsFor(layout, { tools: ALL_TOOLS, trusted: false, mode: "yolo" });
      const [bash, git, write] = await probe(mechanism, untrusted, [
        { op: "run", command: "bash", args: ["-c", "echo escaped"] },
        { op: "run", command: "git", args: ["--version"] },
        { op: "write", path: `${layout.ws}/a.txt`, text: "changed" },
      ]);
      assert.equal(bash?.outcome, "NotCapable", bash?.message);
      assert.equal(git?.outcome, "NotCapable", git?.message);
      assert.equal(write?.outcome, "NotCapable", "untrusted: no writes outside the storage root");

      const trusted = permissionsFor(layout, { tools: ALL_TOOLS });
      const [allowed, other] = await probe(mechanism, trusted, [
        { op: "run", command: "bash", args: ["-c", "echo ran"] },
        { op: "run", command: "git", args: ["--version"] },
      ]);
      assert.deepEqual(allowed, { outcome: "ok", value: "ran" }, "the trusted control run works");
      assert.equal(other?.outcome, "NotCapable", "only the shell is runnable, not every program");
      if (Deno.build.os === "linux") {
        // What the Bash tool actually spawns: setsid (own process group), which execs the shell.
        const [grouped] = await probe(mechanism, trusted, [
          { op: "run", command: "setsid", args: ["bash", "-c", "echo grouped"] },
        ]);
        assert.deepEqual(grouped, { outcome: "ok", value: "grouped" });
      }
    });
  });

  Deno.test(`proof (${mechanism.name}): a child cannot read outside its grant`, async () => {
    await withLayout(async (layout) => {
      const [outside, inside, env] = await probe(mechanism, permissionsFor(layout, {}), [
        { op: "read", path: `${layout.outside}/secret.txt` },
        { op: "read", path: `${layout.ws}/a.txt` },
        { op: "env", name: "HOME" },
      ]);
      assert.equal(outside?.outcome, "NotCapable", outside?.message);
      assert.deepEqual(inside, { outcome: "ok", value: "inside" });
      assert.equal(env?.outcome, "NotCapable", "no variables beyond the listed ones");
    });
  });

  Deno.test(`proof (${mechanism.name}): a child reads its own project's records, not the rest of the storage root`, async () => {
    await withLayout(async (layout) => {
      const records = {
        own: `${layout.storage}/projects/-ws/session-1.jsonl`,
        otherProject: `${layout.storage}/projects/-elsewhere/session-2.jsonl`,
        sidecar: `${layout.storage}/agents/sessions/agent-x.json`,
        trust: `${layout.storage}/trust.json`,
      };
      for (const path of Object.values(records)) {
        await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
        await Deno.writeTextFile(path, "record");
      }
      const tools = { tools: ALL_TOOLS, mode: "yolo" as const };
      const [own, other, sidecar, trust] = await probe(mechanism, permissionsFor(layout, tools), [
        { op: "read", path: records.own },
        { op: "read", path: records.otherProject },
        { op: "read", path: records.sidecar },
        { op: "read", path: records.trust },
      ]);
      assert.deepEqual(own, { outcome: "ok", value: "record" });
      for (const [name, result] of Object.entries({ other, sidecar, trust })) {
        assert.equal(result?.outcome, "NotCapable", `${name}: ${result?.message}`);
      }
    });
  });

  Deno.test(`proof (${mechanism.name}): a child's network is limited to the provider host`, async () => {
    await withLayout(async (layout) => {
      const serve = (body: string) =>
        Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => new Response(body));
      await using provider = serve("provider");
      await using other = serve("other");
      const permissions = permissionsFor(layout, { providerHosts: [`127.0.0.1:${provider.addr.port}`] });
      const [allowed, denied] = await probe(mechanism, permissions, [
        { op: "fetch", url: `http://127.0.0.1:${provider.addr.port}/` },
        { op: "fetch", url: `http://127.0.0.1:${other.addr.port}/` },
      ]);
      assert.deepEqual(allowed, { outcome: "ok", value: "provider" });
      assert.equal(denied?.outcome, "NotCapable", denied?.message);
    });
  });

  Deno.test(`proof (${mechanism.name}): Deno checks the path as given, so a symlink leads outside`, async () => {
    await withLayout(async (layout) => {
      await Deno.symlink(layout.outside, `${layout.ws}/link`);
      const permissions = permissionsFor(layout, { tools: ALL_TOOLS });
      const [viaLink, realPath, direct, plant] = await probe(mechanism, permissions, [
        { op: "read", path: `${layout.ws}/link/secret.txt` },
        { op: "realPath", path: `${layout.ws}/link` },
        { op: "read", path: `${layout.outside}/secret.txt` },
        { op: "write", path: `${layout.ws}/link/planted.txt`, text: "escaped" },
      ]);
      // Deno grants by the path as written: through the link, the outside file is readable and writable.
      assert.deepEqual(viaLink, { outcome: "ok", value: "outside secret" });
      assert.equal(plant?.outcome, "ok");
      assert.equal(await Deno.readTextFile(`${layout.outside}/planted.txt`), "escaped");
      // The same file by its real path is refused: only resolving symlinks first (as tools do) catches it.
      assert.deepEqual(realPath, { outcome: "ok", value: layout.outside });
      assert.equal(direct?.outcome, "NotCapable");
    });
  });
}

/** A general-purpose child in yolo mode, the widest grant a child can get. */
function proofSpec(
  isolation: "none" | "worktree",
  parentProjectPath: string,
  workspaceRoot: string,
): ChildSpec {
  return {
    id: "agent-proof",
    subagentType: "general-purpose",
    description: "d",
    prompt: "p",
    config: {
      name: "general-purpose",
      description: "d",
      systemPrompt: "",
      tools: null,
      disallowedTools: [],
      model: "m",
      permissionMode: "yolo",
      maxTurns: null,
      skills: [],
      isolation,
      source: "built-in",
    },
    parentSessionId: "session-proof",
    parentProjectPath,
    workspaceRoot,
    trusted: true,
    depth: 1,
    lineage: { rootAgentId: "agent-proof", resumeDepth: 0 },
  };
}

Deno.test("proof (worker): a Blade child's grant fetches nowhere, its provider's host included", async () => {
  await withLayout(async (layout) => {
    const serve = () =>
      Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => new Response("x"));
    await using provider = serve();
    await using other = serve();
    const baseUrl = `http://127.0.0.1:${provider.addr.port}`;
    const spec = proofSpec("none", layout.ws, layout.ws);
    // The widest child there is (trusted, yolo, every tool) with an HTTP provider on loopback.
    const permissions = permissionsForChild({
      spec,
      toolNames: ALL_TOOLS,
      provider: { kind: "anthropic", apiKey: "sk-proof", baseUrl },
      storageRoot: layout.storage,
      transcriptDir: `${layout.storage}/projects/-ws`,
      extraReadDirs: [],
      maxTokens: 1,
      platform: Deno.build.os,
      secrets: [],
      delegation: true,
      onEvent: () => {},
      onCall: () => Promise.reject(new Error("no calls")),
    });
    assert.equal(permissions.net, false);
    const results = await probe(WORKER, permissions, [
      { op: "fetch", url: `${baseUrl}/v1/messages` },
      { op: "fetch", url: `http://127.0.0.1:${other.addr.port}/` },
      { op: "fetch", url: "https://api.anthropic.com/v1/messages" },
    ]);
    for (const result of results) assert.equal(result.outcome, "NotCapable", result.message);
  });
});

for (const mechanism of MECHANISMS) {
  Deno.test(`proof (${mechanism.name}): a worktree child's grant writes its worktree, never the parent's checkout`, async () => {
    await using repo = await gitRepo();
    const lease = await prepareWorktree(repo.deps(), { workspaceRoot: repo.root, agentId: "agent-proof" });
    const spec: ChildSpec = {
      ...proofSpec("worktree", repo.root, lease.workspaceRoot),
      worktree: {
        workspaceRoot: lease.workspaceRoot,
        worktreeRoot: lease.worktreeRoot,
        parentCheckout: lease.repositoryRoot,
      },
    };
    const permissions = permissionsForChild({
      spec,
      toolNames: ALL_TOOLS,
      provider: { kind: "scripted", script: { agents: {} } },
      storageRoot: repo.storage,
      transcriptDir: `${repo.storage}/projects/p`,
      extraReadDirs: [],
      maxTokens: 1,
      platform: Deno.build.os,
      secrets: [],
      delegation: false,
      onEvent: () => {},
      onCall: () => Promise.reject(new Error("no calls")),
    });
    assert.ok(Array.isArray(permissions.write) && !permissions.write.some((p) => p === repo.root));
    const [parentWrite, worktreeWrite, parentRead] = await probe(mechanism, permissions, [
      { op: "write", path: `${repo.root}/src/a.ts`, text: "pwned" },
      { op: "write", path: `${lease.worktreeRoot}/src/a.ts`, text: "changed\n" },
      { op: "read", path: `${repo.root}/README.md` },
    ]);
    assert.equal(parentWrite?.outcome, "NotCapable", parentWrite?.message);
    assert.equal(worktreeWrite?.outcome, "ok", worktreeWrite?.message);
    assert.deepEqual(parentRead, { outcome: "ok", value: "# test\n" });
    assert.equal(await Deno.readTextFile(`${repo.root}/src/a.ts`), "export const a = 1;\n");
  });
}

Deno.test("proof: an escalating agent's effective grant (capability ceiling) gets NotCapable from Deno", async () => {
  await withLayout(async (layout) => {
    const registry = new RegistrySnapshot(layout.ws, [
      agentDefinitionSchema.parse({
        name: "escalator",
        description: "Asks for everything",
        systemPrompt: "x",
        source: "project-claude",
        path: `${layout.ws}/.claude/agents/escalator.md`,
        permissionMode: "bypassPermissions",
      }),
    ]);
    const base = {
      sessionId: "session-p",
      projectPath: layout.ws,
      workspaceRoot: layout.ws,
      model: "m",
      depth: 0,
      trusted: true,
      maxDepth: 3,
      aliases: {},
      process: { pid: 1, identity: null },
    };
    const input = {
      subagent_type: "escalator",
      description: "d",
      prompt: "escalate now please",
      subagent_session_id: "agent-x",
    };
    // Under a plan-mode parent, and under a parent whose tools are read-only: no write, no run.
    for (
      const parent of [{ ...base, mode: "plan" as const }, {
        ...base,
        mode: "yolo" as const,
        tools: ["Read", "Task"],
      }]
    ) {
      const plan = planLaunch(input, { registry, parent, now: 0 });
      assert.ok(plan.ok);
      const permissions = permissionsFor(layout, {
        mode: plan.spec.config.permissionMode,
        tools: childToolNames(plan.spec, BLADE_TOOL_NAMES),
      });
      const [write, run] = await probe(MECHANISMS[0]!, permissions, [
        { op: "write", path: `${layout.ws}/escaped.txt`, text: "x" },
        { op: "run", command: "bash", args: ["-c", "echo escaped"] },
      ]);
      assert.equal(write?.outcome, "NotCapable", write?.message);
      assert.equal(run?.outcome, "NotCapable", run?.message);
      assert.equal(await exists(`${layout.ws}/escaped.txt`), false);
    }
  });
});
