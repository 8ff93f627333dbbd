// End-to-end: `blade trust [path] [--revoke | --status] [--json]` as a real subprocess (docs/reference/cli.md, docs/reference/permissions.md):
// recording, showing and revoking Workspace Trust, sub-folders covered by a trusted parent, and a
// clear error for a folder that does not exist, and a warning when the folder is / or the home folder.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult } from "./support/blade.ts";

Deno.test("trust: trust, show, cover sub-folders, revoke", async () => {
  await using sandbox = await bladeSandbox();
  const ws = sandbox.workspace;
  const sub = `${ws}/packages/app`;
  await Deno.mkdir(sub, { recursive: true });

  const untrusted = await sandbox.run(["trust", "--status"]);
  assert.deepEqual(untrusted, {
    code: 0,
    stdout: `${ws} is not trusted. Run \`blade trust\` in it to trust it.\n`,
    stderr: "",
  });

  const trusted = await sandbox.run(["trust"]);
  assert.deepEqual(trusted, { code: 0, stdout: `Trusted ${ws}.\n`, stderr: "" });
  const trustFile = `${sandbox.storage}/trust.json`;
  const recorded = JSON.parse(await Deno.readTextFile(trustFile)) as { trusted: { trustedAt: string }[] };
  const trustedAt = recorded.trusted[0]?.trustedAt ?? "";
  assert.deepEqual(recorded, { version: 1, trusted: [{ path: ws, trustedAt }] });
  assert.ok(!Number.isNaN(Date.parse(trustedAt)), trustedAt);
  assert.equal((await Deno.stat(trustFile)).mode! & 0o777, 0o600);

  const [again, status, subStatus, subJson] = await Promise.all([
    sandbox.run(["trust", "--json"]),
    sandbox.run(["trust", "--status"]),
    sandbox.run(["trust", "--status"], { cwd: sub }),
    sandbox.run(["trust", "--status", "--json"], { cwd: sub }),
  ]);
  assert.deepEqual(parseJsonResult(again), { path: ws, trusted: true, changed: false });
  assert.equal(status.stdout, `${ws} is trusted.\n`);
  assert.equal(subStatus.stdout, `${sub} is trusted (through ${ws}).\n`);
  assert.deepEqual(parseJsonResult(subJson), { path: sub, trusted: true, via: ws, changed: false });
  for (const run of [again, status, subStatus, subJson]) assert.deepEqual([run.code, run.stderr], [0, ""]);

  const revoked = await sandbox.run(["trust", "--revoke"]);
  assert.deepEqual(revoked, { code: 0, stdout: `${ws} is no longer trusted.\n`, stderr: "" });
  assert.deepEqual(JSON.parse(await Deno.readTextFile(trustFile)), { version: 1, trusted: [] });
  const [after, revokedAgain] = await Promise.all([
    sandbox.run(["trust", "--status", "--json"], { cwd: sub }),
    sandbox.run(["trust", "--revoke", "--json"]),
  ]);
  assert.deepEqual(parseJsonResult(after), { path: sub, trusted: false, changed: false });
  assert.deepEqual(parseJsonResult(revokedAgain), { path: ws, trusted: false, changed: false });
});

Deno.test("trust: a relative path argument names another folder", async () => {
  await using sandbox = await bladeSandbox();
  const other = `${sandbox.root}/other`;
  await Deno.mkdir(other);
  const run = await sandbox.run(["trust", "../other", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(parseJsonResult(run), { path: other, trusted: true, changed: true });
  const [here, there] = await Promise.all([
    sandbox.run(["trust", "--status", "--json"]),
    sandbox.run(["trust", "--status", "--json"], { cwd: other }),
  ]);
  assert.deepEqual(parseJsonResult(here), { path: sandbox.workspace, trusted: false, changed: false });
  assert.deepEqual(parseJsonResult(there), { path: other, trusted: true, changed: false });
});

Deno.test("trust: a folder that does not exist fails with exit 1 and a hint", async () => {
  await using sandbox = await bladeSandbox();
  const missing = `${sandbox.root}/no/such/folder`;
  const [text, json] = await Promise.all([
    sandbox.run(["trust", missing]),
    sandbox.run(["trust", missing, "--json"]),
  ]);
  assert.deepEqual(text, {
    code: 1,
    stdout: "",
    stderr: `blade: Cannot trust ${missing}: no such folder.\n  hint: Give the path of an existing folder.\n`,
  });
  assert.equal(json.code, 1);
  assert.deepEqual(parseJsonResult(json), {
    type: "error",
    is_error: true,
    error: {
      code: "path_not_found",
      message: `Cannot trust ${missing}: no such folder.`,
      hint: "Give the path of an existing folder.",
    },
  });
  assert.equal(await Deno.stat(`${sandbox.storage}/trust.json`).then(() => true, () => false), false);
});

Deno.test("trust: / and the home folder succeed with one clear warning; a project folder gets none", async () => {
  await using sandbox = await bladeSandbox();
  for (const [args, shown] of [[["trust", "/"], "/"], [["trust", sandbox.home], sandbox.home]] as const) {
    const r = await sandbox.run([...args]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `Trusted ${shown}.\n`);
    const lines = r.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      new RegExp(`^blade: warning: ${shown} is (the root|your home) folder: every folder below`),
    );
    const json = await sandbox.run([...args, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.match(json.stderr, /^blade: warning: /);
    assert.equal((JSON.parse(json.stdout) as { trusted: boolean }).trusted, true);
  }
  const status = await sandbox.run(["trust", "--status", "/"]);
  assert.deepEqual([status.code, status.stderr], [0, ""]);
  const project = await sandbox.run(["trust"]);
  assert.deepEqual([project.code, project.stderr], [0, ""]);
});

Deno.test("trust: a folder whose name holds escape sequences is shown without them", async () => {
  await using sandbox = await bladeSandbox();
  // A cloned repository chooses its folders' names: one that sets the title and clears the screen.
  const name = "evil\x1b]0;pwned\x07\x1b[2J\u009b1Adir";
  const dir = `${sandbox.workspace}/${name}`;
  await Deno.mkdir(dir);
  // deno-lint-ignore no-control-regex
  const raw = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;
  for (const args of [["trust", name], ["trust", "--status", name], ["trust", "--revoke", name]]) {
    const run = await sandbox.run(args);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, raw, JSON.stringify(run));
    assert.ok(run.stdout.includes(`${sandbox.workspace}/evil`), run.stdout);
  }
  const json = await sandbox.run(["trust", "--status", "--json", name]);
  assert.doesNotMatch(json.stdout, raw);
  assert.equal(parseJsonResult(json).path, dir, "json keeps the exact path, escaped");
});
