// The release pipeline end to end. Always: the `deno compile` payload of Linux builds made on a
// stand-in runtime (/bin/false: this machine cannot download Deno's `denort`), checked for the embedded
// agents and Worker entries and the baked permission flags; and the bundle, run through its launcher
// from an empty DENO_DIR. Only where a probe shows that a real compile works: the real binary, run.

import assert from "node:assert/strict";
import { join } from "node:path";
import { BladeError } from "../lib/errors.ts";
import { bladeProcessPermissions, toDenoFlags } from "../lib/permissions/deno_permissions.ts";
import { v8FlagsArg } from "../lib/sys/v8_flags.ts";
import { VERSION } from "../lib/version.ts";
import { SOURCES_ONLY } from "./support/blade.ts";
import { bakedPermissionFlags, readCompilePayload } from "../scripts/compile_payload.ts";
import { BUILD_STAMP_FILE, buildBundle, LAUNCHER_EXTRA_FLAGS } from "../scripts/bundle.ts";
import {
  artifactName,
  buildRelease,
  CHECKSUMS_FILE,
  probeCompile,
  resolveTarget,
  TARGETS,
} from "../scripts/release.ts";
import { ENTRY, ROOT, unstableFlags, WORKER_ENTRIES } from "../scripts/release_inputs.ts";

/** Any ELF executable stands in for Deno's runtime in Linux payload builds (Linux machines only). */
const STAND_IN_BASE = "/bin/false";
const haveStandIn = await isElf(STAND_IN_BASE);
// The artefact legs of .ci/run skip these tests (they build their own artefacts): no probe there.
const canCompile = SOURCES_ONLY.ignore ? false : await probeCompile();
const hostTarget = TARGETS.find((t) => t.triple === Deno.build.target);

const BLADE_FLAGS = toDenoFlags(bladeProcessPermissions());
const BUILTIN_AGENTS = ["Explore", "Plan", "general-purpose", "goal-verification", "review", "verification"];

/** A parent that delegates a Read to an Explore child (run in a Worker), then reports what it found. */
const SCRIPT = `
agents:
  main:
    - turns:
        - tool_calls:
            - name: Task
              input:
                subagent_type: Explore
                description: "Read the notes"
                prompt: "Read notes.txt and report its first line."
        - text: "Child says: {{last_user}}"
  Explore:
    - turns:
        - tool_calls:
            - name: Read
              input: { file_path: "notes.txt" }
        - text: 'First line: {{match:(release pipeline \\w+)}}'
`;

async function isElf(path: string): Promise<boolean> {
  try {
    const head = (await Deno.readFile(path)).subarray(0, 4);
    return new TextDecoder().decode(head) === "\x7fELF";
  } catch {
    return false;
  }
}

async function withTempDir(prefix: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function sha256Hex(path: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(path)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function repoAgentFiles(): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(join(ROOT, "agents"))) {
    if (e.isFile && e.name.endsWith(".md")) names.push(e.name);
  }
  return names.sort();
}

/** Entry names of a folder; none when it does not exist. */
async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(path)) names.push(e.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a Blade artifact in a sealed environment: throwaway HOME, storage root and DENO_DIR. */
async function runArtifact(command: string, args: string[], cwd: string, extraEnv: Record<string, string>) {
  const home = await Deno.makeTempDir({ prefix: "blade-release-home-" });
  try {
    const out = await new Deno.Command(command, {
      args,
      cwd,
      clearEnv: true,
      env: {
        PATH: "/usr/bin:/bin",
        HOME: join(home, "home"),
        BLADE_STORAGE_ROOT: join(home, "storage"),
        NO_COLOR: "1",
        ...extraEnv,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const run: Run = {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
    };
    return run;
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** `--version`, `agents list --json` and a scripted `-p` run with a Worker child, as a user would. */
async function checkRuns(command: string, env: Record<string, string>): Promise<void> {
  await withTempDir("blade-release-ws-", async (ws) => {
    await Deno.writeTextFile(join(ws, "notes.txt"), "release pipeline works\n");
    await Deno.writeTextFile(join(ws, "script.yaml"), SCRIPT);
    // A broken deno.json in the user's folder must not matter to an installed Blade.
    await Deno.writeTextFile(join(ws, "deno.json"), "{ not json");

    const version = await runArtifact(command, ["--version"], ws, env);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), `blade ${VERSION}`);

    const list = await runArtifact(command, ["agents", "list", "--json"], ws, env);
    assert.equal(list.code, 0, list.stderr);
    const agents = (JSON.parse(list.stdout) as { agents: { name: string; source: string }[] }).agents;
    assert.deepEqual(
      agents.filter((a) => a.source === "builtin").map((a) => a.name).sort(),
      [...BUILTIN_AGENTS].sort(),
    );

    const args = ["-p", "What do the notes say?", "--provider", "scripted", "--script", "script.yaml"];
    const print = await runArtifact(command, [...args, "--output-format", "json"], ws, env);
    assert.equal(print.code, 0, print.stderr);
    const result = JSON.parse(print.stdout) as {
      is_error: boolean;
      result: string;
      subagents: { spawned: number; completed: number };
    };
    assert.equal(result.is_error, false);
    assert.match(result.result, /^Child says: First line: release pipeline works/);
    assert.equal(result.subagents.spawned, 1);
    assert.equal(result.subagents.completed, 1);
  });
}

Deno.test({
  name:
    "release: the payload of Linux builds embeds the agents and Worker entries and bakes the scoped flags",
  ignore: SOURCES_ONLY.ignore || !haveStandIn,
  fn: () => checkPayloadBuild(),
});

async function checkPayloadBuild(): Promise<void> {
  await withTempDir("blade-release-", async (dir) => {
    const result = await buildRelease({
      targets: ["linux-x64", "aarch64-unknown-linux-gnu"],
      base: STAND_IN_BASE,
      outDir: dir,
      check: false, // `deno task check` type-checks; this test is about what gets embedded
    });
    const names = ["blade-x86_64-unknown-linux-gnu", "blade-aarch64-unknown-linux-gnu"];
    assert.deepEqual(result.artifacts.map((a) => a.path), names.map((n) => join(dir, n)));

    const sums = await Deno.readTextFile(join(dir, CHECKSUMS_FILE));
    const expected = await Promise.all(
      [...names].sort().map(async (n) => `${await sha256Hex(join(dir, n))}  ${n}\n`),
    );
    assert.equal(sums, expected.join(""));
    // Sorted by file name like SHA256SUMS (sorting the lines would sort by hash, which changes with the code).
    assert.deepEqual(
      [...result.artifacts].sort((a, b) => a.path.localeCompare(b.path))
        .map((a) => `${a.sha256}  ${a.path.slice(dir.length + 1)}\n`),
      expected,
    );

    for (const artifact of result.artifacts) {
      const payload = await readCompilePayload(artifact.path);
      const { metadata } = payload;
      assert.deepEqual(metadata.argv, [], "no arguments baked in");
      assert.equal(metadata.entrypoint_key, ENTRY);
      assert.ok(metadata.unstable_config.features.includes("worker-options"));
      assert.deepEqual(await unstableFlags(), ["--unstable-worker-options"]);

      // The permission JSON stands for exactly the `blade` task's flags: scoped, never -A, no prompt.
      assert.deepEqual(new Set(bakedPermissionFlags(metadata.permissions)), new Set(BLADE_FLAGS));
      assert.equal(metadata.permissions.prompt, false);
      assert.equal(metadata.permissions.allow_ffi, null);
      assert.ok(!BLADE_FLAGS.some((f) => f === "-A" || f === "--allow-all"));

      const embedded = new Set(payload.files.map((f) => f.path));
      for (const name of await repoAgentFiles()) {
        assert.deepEqual(
          payload.readFile(`agents/${name}`),
          await Deno.readFile(join(ROOT, "agents", name)),
          name,
        );
      }
      for (const path of [ENTRY, ...WORKER_ENTRIES, "lib/registry/builtin_agents.gen.ts"]) {
        assert.ok(embedded.has(path), `${path} is embedded`);
        assert.deepEqual(payload.readFile(path), await Deno.readFile(join(ROOT, path)), path);
      }
      assert.ok(payload.npmPackages.some((id) => id.startsWith("yaml@")));
      assert.ok(payload.npmPackages.some((id) => id.startsWith("zod@")));
      assert.deepEqual(payload.remoteModules, []);
    }
  });
}

Deno.test("release: a base of the wrong format is refused before compiling", SOURCES_ONLY, async () => {
  await withTempDir("blade-release-", async (dir) => {
    const elf = join(dir, "elf");
    await Deno.writeFile(elf, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]));
    for (const target of ["windows-x64", "macos-arm64"]) {
      await assert.rejects(
        buildRelease({ targets: [target], base: elf, outDir: join(dir, "out") }),
        (e: unknown) => e instanceof BladeError && e.code === "release_base_mismatch",
      );
    }
    assert.throws(
      () => resolveTarget("linux-riscv"),
      (e: unknown) => e instanceof BladeError && e.exitCode === 2 && e.hint?.includes("linux-x64") === true,
    );
    assert.equal(artifactName(resolveTarget("windows-x64")), "blade-x86_64-pc-windows-msvc.exe");
  });
});

Deno.test({
  name: "release: without a runtime download, the error says what to do",
  ignore: SOURCES_ONLY.ignore || canCompile || Deno.env.get("DENORT_BIN") !== undefined,
  fn: async () => {
    await withTempDir("blade-release-", async (dir) => {
      await assert.rejects(
        // A network that swallows packets instead of refusing them must not hang the suite.
        buildRelease({
          targets: ["linux-x64"],
          outDir: dir,
          check: false,
          signal: AbortSignal.timeout(30_000),
        }),
        (e: unknown) =>
          e instanceof BladeError && e.code === "denort_unavailable" && e.hint?.includes("--base") === true,
      );
    });
  },
});

Deno.test({
  name: "release: the real binary runs --version, agents list and a scripted -p run",
  ignore: SOURCES_ONLY.ignore || !canCompile || hostTarget === undefined,
  fn: async () => {
    await withTempDir("blade-release-real-", async (dir) => {
      const result = await buildRelease({ targets: [hostTarget?.triple ?? ""], outDir: dir, check: false });
      const binary = result.artifacts[0]?.path ?? "";
      await checkRuns(binary, {});
    });
  },
});

Deno.test(
  "bundle: the build runs through its launcher from an empty DENO_DIR, Worker children included",
  SOURCES_ONLY,
  async () => {
    await withTempDir("blade-bundle-", async (dir) => {
      const result = await buildBundle({ outDir: join(dir, "dist") });
      assert.deepEqual(result.flags, [
        ...BLADE_FLAGS,
        ...await unstableFlags(),
        v8FlagsArg(),
        ...LAUNCHER_EXTRA_FLAGS,
      ]);
      assert.equal(result.script, join(dir, "dist", "blade.js"));
      const stamp = JSON.parse(await Deno.readTextFile(join(dir, "dist", BUILD_STAMP_FILE)));
      assert.deepEqual([stamp.deno, stamp.entry], [Deno.version.deno, "blade.js"]);

      const denoDir = join(dir, "deno_dir");
      await Deno.mkdir(denoDir);
      // Through a symlink, as when the launcher is linked into ~/.local/bin.
      const bin = join(dir, "bin");
      await Deno.mkdir(bin);
      await Deno.symlink(result.launcher, join(bin, "blade"));
      await checkRuns(join(bin, "blade"), { DENO_DIR: denoDir, BLADE_DENO: Deno.execPath() });

      // Nothing was fetched: the bundle carries its npm packages.
      assert.deepEqual(await listDir(join(denoDir, "npm")), []);
    });
  },
);
