import assert from "node:assert/strict";
import { posixLauncher, windowsLauncherText } from "./bundle.ts";
import { LAUNCHER_STAT_ENV } from "../lib/sys/process.ts";
import { deferLazyImports, pointSplitWorkerUrls, rewriteWorkerUrl, splitOutputs } from "./bundle_split.ts";

const ENTRY = "lib/executor/child_worker.ts";

Deno.test("rewriteWorkerUrl: every URL naming the entry points at the target; others stay", () => {
  const text = [
    `const WORKER = new URL("../executor/child_worker.ts", import.meta.url);`,
    `const again = new URL( './child_worker.ts' , import.meta.url );`,
    `const other = new URL("../executor/other_child_worker.ts", import.meta.url);`,
    `const plain = "child_worker.ts";`,
    `const base = new URL("child_worker.ts", "file:///x/");`,
  ].join("\n");
  let hits = 0;
  const out = rewriteWorkerUrl(text, ENTRY, "../worker/child_worker.js", () => hits++);
  assert.equal(
    out,
    [
      `const WORKER = new URL("../worker/child_worker.js", import.meta.url);`,
      `const again = new URL("../worker/child_worker.js", import.meta.url);`,
      `const other = new URL("../executor/other_child_worker.ts", import.meta.url);`,
      `const plain = "child_worker.ts";`,
      `const base = new URL("child_worker.ts", "file:///x/");`,
    ].join("\n"),
  );
  assert.equal(hits, 2);
});

Deno.test("launchers: run the build's entry below their own folder with exactly the given flags", () => {
  const flags = ["--no-prompt", "--allow-read", "--unstable-worker-options"];
  const sh = posixLauncher(flags, "main/main.js");
  assert.ok(sh.startsWith("#!/bin/sh\n"));
  assert.ok(
    sh.includes(
      `exec "$deno" run --no-prompt --allow-read --unstable-worker-options "$dir/main/main.js" "$@"\n`,
    ),
  );
  const cmd = windowsLauncherText(flags, "main/main.js");
  assert.ok(
    cmd.includes(
      `"%BLADE_DENO%" run --no-prompt --allow-read --unstable-worker-options "%~dp0main\\main.js" %*\r\n`,
    ),
  );
});

Deno.test("posix launcher: finds its entry when run by path, by a relative or absolute symlink and from PATH", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-launcher-" });
  try {
    await Deno.mkdir(`${dir}/dist/main`, { recursive: true });
    await Deno.mkdir(`${dir}/bin`);
    await Deno.mkdir(`${dir}/links`);
    await Deno.writeTextFile(`${dir}/dist/main/main.js`, "");
    await Deno.writeTextFile(`${dir}/dist/blade`, posixLauncher(["--flag"], "main/main.js"), { mode: 0o755 });
    // Stands in for Deno: says whether the entry it was given exists, and its arguments.
    await Deno.writeTextFile(`${dir}/fake-deno`, '#!/bin/sh\ntest -f "$3" && echo "found $*"\n', {
      mode: 0o755,
    });
    await Deno.symlink("../dist/blade", `${dir}/bin/blade`);
    await Deno.symlink(`${dir}/bin/blade`, `${dir}/links/b2`);
    const run = async (cmd: string, cwd: string, path = "/usr/bin:/bin") => {
      const out = await new Deno.Command(cmd, {
        args: ["-p", "x"],
        cwd,
        env: { BLADE_DENO: `${dir}/fake-deno`, PATH: path },
        clearEnv: true,
        stdout: "piped",
      }).output();
      return new TextDecoder().decode(out.stdout).trim();
    };
    // Each finds the entry (the fake Deno tests it exists), whatever path it reached it by.
    const found = /^found run --flag \S*main\/main\.js -p x$/;
    assert.match(await run(`${dir}/dist/blade`, "/"), found);
    assert.match(await run("./blade", `${dir}/dist`), found);
    assert.match(await run("bin/blade", dir), found);
    assert.match(await run(`${dir}/links/b2`, "/"), found);
    assert.match(await run("blade", "/", `${dir}/bin:/usr/bin:/bin`), found);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("posix launcher: without a Deno to run, says what is missing and what to do, and exits 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-launcher-" });
  try {
    await Deno.writeTextFile(`${dir}/blade`, posixLauncher(["--flag"], "main/main.js"), { mode: 0o755 });
    const run = async (env: Record<string, string>) => {
      const out = await new Deno.Command(`${dir}/blade`, {
        args: ["-p", "x"],
        env,
        clearEnv: true,
        stderr: "piped",
      })
        .output();
      return { code: out.code, err: new TextDecoder().decode(out.stderr) };
    };
    assert.deepEqual(await run({ PATH: "/usr/bin:/bin" }), {
      code: 1,
      err:
        'blade: this release bundle runs on Deno 2.9 or later, and "deno" was not found. Install Deno from https://deno.com and put it on PATH, or set BLADE_DENO to its path.\n',
    });
    const missing = await run({ PATH: "/usr/bin:/bin", BLADE_DENO: `${dir}/no-such-deno` });
    assert.equal(missing.code, 1);
    assert.ok(missing.err.includes(`and "${dir}/no-such-deno" was not found.`), missing.err);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "posix launcher: hands the Deno it execs its own /proc stat line (the same PID and start time)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "blade-launcher-" });
    try {
      await Deno.mkdir(`${dir}/main`);
      await Deno.writeTextFile(`${dir}/main/main.js`, "");
      await Deno.writeTextFile(`${dir}/blade`, posixLauncher(["--flag"], "main/main.js"), { mode: 0o755 });
      // Stands in for Deno: its PID and start time as the kernel says, then the line it was handed.
      await Deno.writeTextFile(
        `${dir}/fake-deno`,
        `#!/bin/sh\nread -r own < /proc/$$/stat\necho "$own"\necho "$${LAUNCHER_STAT_ENV}"\n`,
        { mode: 0o755 },
      );
      const out = await new Deno.Command(`${dir}/blade`, {
        // An inherited line (another process's) is replaced by the launcher's own.
        env: { BLADE_DENO: `${dir}/fake-deno`, PATH: "/usr/bin:/bin", [LAUNCHER_STAT_ENV]: "1 (x) S" },
        clearEnv: true,
        stdout: "piped",
      }).output();
      const [own, handed] = new TextDecoder().decode(out.stdout).trim().split("\n");
      const pidAndStart = (line: string) => {
        const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
        return [line.split(" ")[0], fields[19]];
      };
      assert.ok(own !== undefined && handed !== undefined);
      assert.deepEqual(pidAndStart(handed), pidAndStart(own));
      assert.match(handed, /^\d+ \(blade\) /, "read by the launcher's shell, before its exec");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("deferLazyImports makes every lazy import of a build a computed URL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-defer-" });
  try {
    await Deno.mkdir(`${dir}/lib`, { recursive: true });
    await Deno.writeTextFile(`${dir}/chunk-A.js`, 'export const a=()=>import("./tools.js");');
    await Deno.writeTextFile(`${dir}/tools.js`, "export const t=1;");
    await Deno.writeTextFile(`${dir}/main.js`, 'import"./chunk-A.js";const r=()=>import("./repl.js");');
    await Deno.writeTextFile(`${dir}/lib/x.js`, 'const z=()=>import( "../zod.js" );');
    await Deno.writeTextFile(`${dir}/repl.js`, "export const r=1;");
    assert.equal(await deferLazyImports(dir), 3);
    assert.equal(
      await Deno.readTextFile(`${dir}/main.js`),
      'import"./chunk-A.js";const r=()=>import(new URL("./repl.js", import.meta.url).href);',
    );
    assert.equal(
      await Deno.readTextFile(`${dir}/chunk-A.js`),
      'export const a=()=>import(new URL("./tools.js", import.meta.url).href);',
    );
    assert.equal(
      await Deno.readTextFile(`${dir}/lib/x.js`),
      'const z=()=>import(new URL("../zod.js", import.meta.url).href);',
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("splitOutputs names each entry's output below the entries' common folder", () => {
  assert.deepEqual([...splitOutputs(["main.ts"])], [["main.ts", "main.js"]]);
  assert.deepEqual([...splitOutputs([ENTRY])], [[ENTRY, "child_worker.js"]]);
  assert.deepEqual([...splitOutputs(["main.ts", ENTRY])], [["main.ts", "main.js"], [
    ENTRY,
    "lib/executor/child_worker.js",
  ]]);
  assert.deepEqual([...splitOutputs(["lib/a/x.ts", "lib/b/y.tsx"])], [["lib/a/x.ts", "a/x.js"], [
    "lib/b/y.tsx",
    "b/y.js",
  ]]);
  assert.deepEqual([...splitOutputs([])], []);
});

Deno.test("pointSplitWorkerUrls points URLs at the entry's output in another build", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-split-" });
  try {
    await Deno.mkdir(`${dir}/main/lib`, { recursive: true });
    await Deno.mkdir(`${dir}/worker`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/main/lib/chunk-A.js`,
      'const W=new URL("../executor/child_worker.ts",import.meta.url);',
    );
    await Deno.writeTextFile(`${dir}/worker/child_worker.js`, "export {};");
    assert.equal(await pointSplitWorkerUrls(`${dir}/main`, [ENTRY], `${dir}/worker`), 1);
    assert.equal(
      await Deno.readTextFile(`${dir}/main/lib/chunk-A.js`),
      'const W=new URL("../../worker/child_worker.js", import.meta.url);',
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
