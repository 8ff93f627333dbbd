import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { listAgentFiles, loadAgents, MAX_AGENT_FILE_BYTES } from "./load.ts";
import { loadRegistry } from "./mod.ts";
import { AGENT_SOURCES, type AgentSource } from "./schema.ts";

const fs = realFs();

interface Layout {
  root: string;
  home: string;
  ws: string;
  dirs: Record<Exclude<AgentSource, "builtin" | "flag">, string>;
}

async function layout(): Promise<Layout & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "blade-registry-" });
  const home = `${root}/home`;
  const ws = `${root}/ws`;
  return {
    root,
    home,
    ws,
    dirs: {
      "user-claude": `${home}/.claude/agents`,
      "project-claude": `${ws}/.claude/agents`,
      user: `${home}/.blade/agents`,
      project: `${ws}/.blade/agents`,
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

async function writeAgent(dir: string, name: string, options: { file?: string; description?: string } = {}) {
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}/${options.file ?? `${name}.md`}`;
  await Deno.writeTextFile(
    path,
    `---\nname: ${name}\ndescription: ${options.description ?? `from ${dir}`}\n---\nBody.\n`,
  );
  return path;
}

const flagJson = (name: string) => JSON.stringify({ [name]: { description: "from flag", prompt: "Body." } });

Deno.test("collision across every pair of sources: the later source wins, with an info naming both", async () => {
  for (let i = 0; i < AGENT_SOURCES.length; i++) {
    for (let j = i + 1; j < AGENT_SOURCES.length; j++) {
      const lower = AGENT_SOURCES[i] as AgentSource;
      const higher = AGENT_SOURCES[j] as AgentSource;
      await using l = await layout();
      const name = lower === "builtin" ? "Explore" : "dup";
      const pathOf = async (source: AgentSource) =>
        source === "builtin"
          ? "builtin:Explore.md"
          : source === "flag"
          ? "--agents"
          : await writeAgent(l.dirs[source], name);
      const lowerPath = await pathOf(lower);
      const higherPath = await pathOf(higher);
      const loaded = await loadAgents({
        fs,
        home: l.home,
        workspace: l.ws,
        trusted: true,
        ...(higher === "flag" ? { agentsJson: flagJson(name) } : {}),
      });
      const winner = loaded.agents.find((a) => a.name === name);
      const pair = `${lower} < ${higher}`;
      assert.equal(winner?.source, higher, pair);
      assert.equal(winner?.path, higherPath, pair);
      assert.deepEqual(loaded.overridden.map((a) => [a.name, a.source]), [[name, lower]], pair);
      assert.deepEqual(loaded.diagnostics, [{
        file: higherPath,
        severity: "info",
        field: "name",
        message: `Agent "${name}" from ${higher} overrides the one from ${lower} (${lowerPath})`,
      }], pair);
    }
  }
});

Deno.test("all six sources define one name: --agents wins over every file", async () => {
  await using l = await layout();
  for (const dir of Object.values(l.dirs)) await writeAgent(dir, "Explore");
  const loaded = await loadAgents({
    fs,
    home: l.home,
    workspace: l.ws,
    trusted: true,
    agentsJson: flagJson("Explore"),
  });
  assert.equal(loaded.agents.find((a) => a.name === "Explore")?.source, "flag");
  assert.deepEqual(loaded.overridden.map((a) => a.source), [
    "builtin",
    "user-claude",
    "project-claude",
    "user",
    "project",
  ]);
});

Deno.test("untrusted workspace: project folders are not read, and an info says why", async () => {
  await using l = await layout();
  for (const [source, dir] of Object.entries(l.dirs)) await writeAgent(dir, `from-${source}`);
  const trusted = await loadAgents({ fs, home: l.home, workspace: l.ws, trusted: true });
  const untrusted = await loadAgents({ fs, home: l.home, workspace: l.ws, trusted: false });
  const custom = (names: string[]) => names.filter((n) => n.startsWith("from-")).sort();
  assert.deepEqual(custom(trusted.agents.map((a) => a.name)), [
    "from-project",
    "from-project-claude",
    "from-user",
    "from-user-claude",
  ]);
  assert.deepEqual(custom(untrusted.agents.map((a) => a.name)), ["from-user", "from-user-claude"]);
  assert.deepEqual(untrusted.diagnostics.map((d) => [d.file, d.severity]), [
    [l.dirs["project-claude"], "info"],
    [l.dirs.project, "info"],
  ]);
  assert.equal(trusted.diagnostics.length, 0);
});

Deno.test("two workspaces never see each other's project agents", async () => {
  await using l = await layout();
  const wsB = `${l.root}/other`;
  await writeAgent(l.dirs.project, "only-a");
  await writeAgent(`${wsB}/.claude/agents`, "only-b");
  await writeAgent(l.dirs.user, "shared");
  const a = await loadRegistry({ fs, home: l.home, workspace: l.ws, trusted: true });
  const b = await loadRegistry({ fs, home: l.home, workspace: wsB, trusted: true });
  assert.equal(a.snapshot.has("only-a"), true);
  assert.equal(a.snapshot.has("only-b"), false);
  assert.equal(b.snapshot.has("only-b"), true);
  assert.equal(b.snapshot.has("only-a"), false);
  assert.equal(a.snapshot.has("shared") && b.snapshot.has("shared"), true);
  assert.equal(a.snapshot.workspace, l.ws);
  assert.equal(b.snapshot.workspace, wsB);
});

Deno.test("a reload builds a new snapshot; the old one keeps what it had", async () => {
  await using l = await layout();
  const path = await writeAgent(l.dirs.project, "helper", { description: "first" });
  const before = (await loadRegistry({ fs, home: l.home, workspace: l.ws, trusted: true })).snapshot;
  await Deno.writeTextFile(path, "---\nname: helper\ndescription: second\n---\nChanged.\n");
  await writeAgent(l.dirs.project, "newcomer");
  const after = (await loadRegistry({ fs, home: l.home, workspace: l.ws, trusted: true })).snapshot;
  assert.equal(before.get("helper")?.description, "first");
  assert.equal(before.has("newcomer"), false);
  assert.equal(after.get("helper")?.description, "second");
  assert.equal(after.has("newcomer"), true);
});

Deno.test("reserved names: files are skipped with a warning and the built-ins stay", async () => {
  await using l = await layout();
  await writeAgent(l.dirs.user, "verification");
  await writeAgent(l.dirs.project, "goal-verification");
  const loaded = await loadAgents({ fs, home: l.home, workspace: l.ws, trusted: true });
  assert.equal(loaded.agents.find((a) => a.name === "verification")?.source, "builtin");
  assert.equal(loaded.agents.find((a) => a.name === "goal-verification")?.source, "builtin");
  assert.deepEqual(loaded.diagnostics.map((d) => [d.severity, d.field]), [["warning", "name"], [
    "warning",
    "name",
  ]]);
  await assert.rejects(
    loadAgents({ fs, home: l.home, workspace: l.ws, trusted: true, agentsJson: flagJson("verification") }),
    /Subagent 'verification' is reserved by Blade/,
  );
});

Deno.test("one bad file does not stop the others", async () => {
  await using l = await layout();
  await writeAgent(l.dirs.project, "good");
  await Deno.writeTextFile(`${l.dirs.project}/bad.md`, "---\nname: bad\n---\n");
  const loaded = await loadAgents({ fs, home: l.home, workspace: l.ws, trusted: true });
  assert.ok(loaded.agents.some((a) => a.name === "good"));
  assert.deepEqual(loaded.diagnostics.map((d) => [d.file, d.severity]), [[
    `${l.dirs.project}/bad.md`,
    "error",
  ]]);
  assert.equal(loaded.files, 6 + 2);
});

Deno.test("the same name twice in one folder: the first file wins, the second is reported", async () => {
  await using l = await layout();
  await writeAgent(l.dirs.user, "twin", { file: "a.md" });
  await writeAgent(l.dirs.user, "twin", { file: "b.md" });
  const loaded = await loadAgents({ fs, home: l.home, workspace: l.ws, trusted: true });
  assert.equal(loaded.agents.find((a) => a.name === "twin")?.path, `${l.dirs.user}/a.md`);
  assert.deepEqual(loaded.diagnostics, [{
    file: `${l.dirs.user}/b.md`,
    severity: "warning",
    field: "name",
    message: `Agent "twin" is also defined in ${l.dirs.user}/a.md; this file is ignored`,
    hint: "Give each agent in a folder its own name",
  }]);
});

Deno.test("symlinked agent files load; oversized files and a file in place of a folder are reported", async () => {
  await using l = await layout();
  const target = await writeAgent(`${l.root}/dotfiles`, "linked");
  await Deno.mkdir(l.dirs.user, { recursive: true });
  await Deno.symlink(target, `${l.dirs.user}/linked.md`);
  await Deno.writeTextFile(`${l.dirs.user}/huge.md`, "x".repeat(MAX_AGENT_FILE_BYTES + 1));
  await Deno.mkdir(`${l.ws}/.blade`, { recursive: true });
  await Deno.writeTextFile(l.dirs.project, "not a folder");
  const loaded = await loadAgents({ fs, home: l.home, workspace: l.ws, trusted: true });
  assert.ok(loaded.agents.some((a) => a.name === "linked"));
  assert.deepEqual(loaded.diagnostics.map((d) => [d.file, d.severity, d.message]), [
    [
      `${l.dirs.user}/huge.md`,
      "error",
      `File too large (${MAX_AGENT_FILE_BYTES + 1} bytes, at most 1048576); agent not loaded`,
    ],
    [l.dirs.project, "warning", "Expected a folder of agent files, found a file; ignored"],
  ]);
});

Deno.test("bladeHome moves the user folder; no home at all still loads built-ins and projects", async () => {
  await using l = await layout();
  await writeAgent(`${l.root}/store/agents`, "stored");
  await writeAgent(l.dirs.project, "proj");
  const loaded = await loadAgents({
    fs,
    home: undefined,
    workspace: l.ws,
    trusted: true,
    bladeHome: `${l.root}/store`,
  });
  assert.deepEqual(
    loaded.agents.filter((a) => a.source !== "builtin").map((a) => [a.name, a.source]),
    [["stored", "user"], ["proj", "project"]],
  );
});

Deno.test("loadRegistry: built-ins load clean into a snapshot", async () => {
  await using l = await layout();
  const { snapshot, diagnostics } = await loadRegistry({ fs, home: l.home, workspace: l.ws, trusted: false });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(snapshot.names(), [
    "Explore",
    "general-purpose",
    "goal-verification",
    "Plan",
    "review",
    "verification",
  ]);
});

Deno.test("listAgentFiles: an entry that cannot be examined (EACCES) is a warning, not a silent skip", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-registry-eacces-" });
  try {
    await Deno.writeTextFile(`${dir}/real.md`, "---\nname: real\ndescription: d\n---\nbody");
    await Deno.symlink(`${dir}/real.md`, `${dir}/linked.md`);
    const denied = `${dir}/linked.md`;
    const guarded = {
      ...fs,
      stat: (path: string) =>
        path === denied ? Promise.reject(new Deno.errors.PermissionDenied(`stat '${path}'`)) : fs.stat(path),
    };
    const diagnostics: Parameters<typeof listAgentFiles>[2] = [];
    const paths = await listAgentFiles(guarded, dir, diagnostics);
    assert.deepEqual(paths, [`${dir}/real.md`], "the readable file is still listed");
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]!.file, denied);
    assert.match(diagnostics[0]!.message, /Cannot examine it: stat/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
