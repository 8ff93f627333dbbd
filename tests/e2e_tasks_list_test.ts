// `blade tasks list` and `tasks clean` over many runs (docs/reference/cli.md): the newest 20 by
// default with a line saying how many there are, `--limit`, `--all`, `--json`, and cleaning through the
// run index (docs/reference/sidecars.md, "The run index"): the records' files and the files each run
// left go, and a listing after the first reads no finished record again.

import assert from "node:assert/strict";
import { bladeSandbox } from "./support/blade.ts";
import { FileSidecarStore } from "../lib/store/file_store.ts";
import { realClock } from "../lib/sys/clock.ts";
import { realFs } from "../lib/sys/fs.ts";
import { sidecarFixture } from "../lib/testing/sidecar_fixtures.ts";

const DAY = 24 * 60 * 60 * 1000;

Deno.test("tasks list shows the newest 20 runs, --limit and --all more; tasks clean removes old runs through the index", async () => {
  await using sandbox = await bladeSandbox();
  const store = new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot: sandbox.storage });
  const now = Date.now();
  const owner = {
    parentSessionId: "session-listing",
    parentProjectPath: sandbox.workspace,
    workspaceRoot: sandbox.workspace,
  };
  for (let i = 0; i < 25; i++) {
    const lastActiveAt = i < 10 ? now - 10 * DAY - i : now - i * 1000;
    await store.save(sidecarFixture(`agent-run${String(i).padStart(2, "0")}`, {
      ...owner,
      status: "completed",
      description: `Run number ${i}`,
      createdAt: lastActiveAt,
      lastActiveAt,
    }));
  }
  for (const id of ["agent-elsewhere1", "agent-elsewhere2"]) {
    await store.save(
      sidecarFixture(id, { status: "failed", parentProjectPath: "/elsewhere", workspaceRoot: "/elsewhere" }),
    );
  }

  const list = await sandbox.run(["tasks", "list"]);
  assert.equal(list.code, 0, list.stderr);
  const rows = list.stdout.split("\n").filter((l) => l.startsWith("OK "));
  assert.equal(rows.length, 20);
  assert.match(rows[0]!, /agent-run10 .*Run number 10$/);
  assert.match(
    list.stdout,
    /\(the 20 most recently active of 25 runs; --limit <n> shows more, --limit 0 all\)\n25 runs: 25 completed\n$/,
  );

  // Behind the index's back a finished record is torn: the listing does not read it again.
  await Deno.writeTextFile(store.pathOf("agent-run12"), "{ torn");
  const again = await sandbox.run(["tasks", "list", "--limit", "3"]);
  assert.deepEqual(
    again.stdout.split("\n").filter((l) => l.startsWith("OK ")).map((l) => l.split(/\s+/)[1]),
    [
      "agent-run10",
      "agent-run11",
      "agent-run12",
    ],
  );
  await store.save(
    sidecarFixture("agent-run12", { ...owner, status: "completed", lastActiveAt: now - 12_000 }),
  );

  const every = await sandbox.run(["tasks", "list", "--limit", "0"]);
  assert.equal(every.stdout.split("\n").filter((l) => l.startsWith("OK ")).length, 25);
  assert.doesNotMatch(every.stdout, /most recently active/);
  const all = await sandbox.run(["tasks", "list", "--all"]);
  assert.equal(all.stdout.split("\n").filter((l) => /^(OK|FAIL) /.test(l)).length, 27);
  const json = await sandbox.run(["tasks", "list", "--json"]);
  assert.equal(JSON.parse(json.stdout).length, 25, "--json lists every run of the folder unless --limit");
  const page = await sandbox.run(["tasks", "list", "--json", "--limit", "2"]);
  assert.deepEqual(JSON.parse(page.stdout).map((r: { id: string }) => r.id), ["agent-run10", "agent-run11"]);
  const bad = await sandbox.run(["tasks", "list", "--limit", "many"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--limit takes a whole number of runs, got "many"/);

  const clean = await sandbox.run(["tasks", "clean", "--older-than", "7d", "--json"]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.deepEqual(JSON.parse(clean.stdout), { removed: 10 });
  const left = await sandbox.run(["tasks", "list", "--json"]);
  assert.equal(JSON.parse(left.stdout).length, 15);
  const fresh = new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot: sandbox.storage });
  assert.equal((await fresh.listAll()).records.length, 17, "the other folder's runs stay");
});
