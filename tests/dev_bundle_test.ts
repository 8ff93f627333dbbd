// `deno task blade` through launch.ts (lib/sys/dev_bundle.ts): in a copy of the checkout, the
// code-split dev bundle runs when it is up to date (a delegation with its child in a Worker included),
// and the sources run as soon as a source file is newer than the build.

import assert from "node:assert/strict";
import { join } from "node:path";
import { LOCK_PATH } from "../lib/sys/dev_bundle.ts";
import { commandSetup, SOURCES_ONLY } from "./support/blade.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname);

const SCRIPT = JSON.stringify({
  agents: {
    main: [{
      turns: [
        {
          tool_calls: [{
            name: "Task",
            input: { subagent_type: "Explore", description: "Read", prompt: "Read notes.txt." },
          }],
        },
        { text: "Child says: {{last_user}}" },
      ],
    }],
    Explore: [{
      turns: [{ tool_calls: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "read it" }],
    }],
  },
});

async function launch(root: string, ws: string, denoDir: string, flags: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...flags,
      "--config",
      join(root, "deno.json"),
      join(root, "launch.ts"),
      "-p",
      "go",
      "--provider",
      "scripted",
      "--script",
      join(ws, "script.json"),
      "--output-format",
      "json",
    ],
    cwd: ws,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      DENO_DIR: denoDir,
      HOME: ws,
      BLADE_STORAGE_ROOT: join(ws, "storage"),
      BLADE_PROFILE: "1",
      NO_COLOR: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  const result = JSON.parse(new TextDecoder().decode(out.stdout)) as { result: string; is_error: boolean };
  return {
    code: out.code,
    result,
    ran: /\tmain\trunning the (dev bundle|sources)\t/.exec(stderr)?.[1],
    stderr,
  };
}

Deno.test(
  "launch.ts runs the up-to-date dev bundle (Worker child included), the sources once a file changed",
  SOURCES_ONLY,
  async () => {
    const root = await Deno.makeTempDir({ prefix: "blade-devbundle-checkout-" });
    try {
      for (const f of ["main.ts", "launch.ts", "deno.json", "deno.lock", "lib", "scripts"]) {
        const cp = await new Deno.Command("cp", { args: ["-R", join(ROOT, f), join(root, f)] }).output();
        assert.ok(cp.success, `copy ${f}`);
      }
      const ws = join(root, "ws");
      await Deno.mkdir(ws);
      await Deno.writeTextFile(join(ws, "notes.txt"), "dev bundle works\n");
      await Deno.writeTextFile(join(ws, "script.json"), SCRIPT);
      const { flags, denoDir } = await commandSetup();
      // Built as a user builds it, `deno task bundle --dev`, with that task's permissions (it may write
      // only under dist/).
      const build = await new Deno.Command(Deno.execPath(), {
        args: ["task", "-q", "bundle", "--dev"],
        cwd: root,
        env: { DENO_DIR: denoDir, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(build.success, new TextDecoder().decode(build.stderr));
      const fresh = await launch(root, ws, denoDir, flags);
      assert.equal(fresh.code, 0, fresh.stderr);
      assert.equal(fresh.ran, "dev bundle");
      assert.equal(fresh.result.is_error, false);
      assert.match(fresh.result.result, /^Child says: read it/);

      // A source newer than the build: the sources run. (A build "in progress" keeps a rebuild from starting.)
      const later = new Date(Date.now() + 5_000);
      await Deno.utime(join(root, "lib/version.ts"), later, later);
      await Deno.writeTextFile(join(root, LOCK_PATH), "");
      const stale = await launch(root, ws, denoDir, flags);
      assert.equal(stale.code, 0, stale.stderr);
      assert.equal(stale.ran, "sources");
      assert.match(stale.result.result, /^Child says: read it/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);
