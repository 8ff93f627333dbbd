// The README's commands after the first one (which fills Deno's cache): `deno task -q demo` and
// `deno task -q blade …` print nothing of Deno's own on stderr (no Download lines, no task command line)
// and make no registry request — checked with the network cut (`unshare -n` where allowed, else every
// proxy variable pointing at a closed port). `deno task` itself always echoes a task's command line
// unless `-q` is given (Deno has no deno.json setting for it), so the `demo` task runs `blade` with -q.

import assert from "node:assert/strict";
import { CONFIG } from "./support/blade.ts";

const ROOT = CONFIG.slice(0, CONFIG.lastIndexOf("/"));

async function offline(): Promise<{ command: string; prefix: string[]; env: Record<string, string> }> {
  const probe = await new Deno.Command("unshare", { args: ["-n", "true"], stderr: "null" }).output().catch(
    () => null,
  );
  if (probe?.success === true) return { command: "unshare", prefix: ["-n", Deno.execPath()], env: {} };
  const closed = "http://127.0.0.1:9";
  return {
    command: Deno.execPath(),
    prefix: [],
    env: { HTTPS_PROXY: closed, HTTP_PROXY: closed, https_proxy: closed, http_proxy: closed, NO_PROXY: "" },
  };
}

async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" }).output();
  return (JSON.parse(new TextDecoder().decode(out.stdout)) as { denoDir: string }).denoDir;
}

Deno.test("deno task -q demo and deno task -q blade: offline, nothing of Deno's own on stderr", async () => {
  const home = await Deno.makeTempDir({ prefix: "blade-noise-" });
  try {
    const net = await offline();
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      DENO_DIR: Deno.env.get("DENO_DIR") ?? await denoDir(),
      HOME: home,
      BLADE_STORAGE_ROOT: `${home}/.blade`,
      TMPDIR: home,
      NO_COLOR: "1",
      ...net.env,
    };
    for (const args of [["task", "-q", "demo"], ["task", "-q", "blade", "--version"]]) {
      const r = await new Deno.Command(net.command, {
        args: [...net.prefix, ...args],
        cwd: ROOT,
        env,
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(r.stderr);
      assert.equal(r.code, 0, `deno ${args.join(" ")}: ${stderr}`);
      assert.equal(stderr, "", `deno ${args.join(" ")} printed on stderr`);
      assert.match(new TextDecoder().decode(r.stdout), args.includes("demo") ? /completed in/ : /^blade \d/);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** What this machine needs to reach the npm registry (a proxy, its certificate authority), if set. */
function registryAccess(): Record<string, string> {
  const names = [
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "DENO_CERT",
    "NODE_EXTRA_CA_CERTS",
    "NPM_CONFIG_REGISTRY",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
  ];
  return Object.fromEntries(names.flatMap((n) => {
    const v = Deno.env.get(n);
    return v === undefined ? [] : [[n, v]];
  }));
}

Deno.test("first run: npm ci of the pinned toolchain and deno task -q demo with an empty Deno cache print nothing but Blade's own output", async () => {
  const home = await Deno.makeTempDir({ prefix: "blade-first-run-" });
  try {
    // The toolchain's install: npm 11 names every package whose install script is not covered by
    // allowScripts; .tools/package.json denies deno's (not needed: the binary ships in the package).
    const tools = JSON.parse(await Deno.readTextFile(`${ROOT}/.tools/package.json`)) as {
      allowScripts?: Record<string, boolean>;
      dependencies: Record<string, string>;
    };
    for (const name of Object.keys(tools.dependencies)) {
      assert.equal(typeof tools.allowScripts?.[name], "boolean", `allowScripts covers ${name}`);
    }
    // A fresh Deno cache: the packages in deno.lock are downloaded, silently.
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "demo"],
      cwd: ROOT,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: `${home}/deno`,
        HOME: home,
        BLADE_STORAGE_ROOT: `${home}/.blade`,
        TMPDIR: home,
        NO_COLOR: "1",
        ...registryAccess(),
      },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(r.stderr);
    assert.equal(r.code, 0, stderr);
    assert.equal(stderr, "", "a first run prints no Download lines, no build-script warning");
    assert.match(new TextDecoder().decode(r.stdout), /completed in/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
