// An unusable storage root (a regular file, a path under /proc, a read-only folder) is a user error:
// one clear line naming the path, a hint, exit 1 — never a stack trace — for every command family;
// and the read-only commands still work on a read-only root that exists. A relative
// BLADE_STORAGE_ROOT is the user's folder's, not the Blade checkout's.

import assert from "node:assert/strict";
import { type BladeResult, bladeSandbox, readSidecars } from "./support/blade.ts";
import { mountReadOnly } from "./support/mounts.ts";

const SCRIPT = `agents:\n  main:\n    - turns:\n        - text: "hello"\n`;
const DELEGATING = `agents:
  main:
    - turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Look", prompt: "Look around." }
        - text: "done"
  Explore:
    - turns: [{ text: "found it" }]
`;

/** One command per family that opens the storage root for writing. */
const WRITERS = [
  ["-p", "hi", "--provider", "scripted", "--script", "script.yaml"],
  ["tasks", "list"],
  ["tasks", "clean"],
  ["agents", "list"],
  ["trust", "."],
];

function assertUnusable(r: BladeResult, root: string, args: string[]): void {
  const what = `blade ${args.join(" ")} with root ${root}:\n${r.stderr}`;
  assert.equal(r.code, 1, what);
  assert.doesNotMatch(r.stderr, /internal error|^ {4}at /m, what);
  assert.match(
    r.stderr,
    new RegExp(`^blade: The storage root ${root} is unusable: .+\\.\\n  hint: .+\\n`),
    what,
  );
}

Deno.test("e2e storage root: a regular file or a path under /proc is a clear error, exit 1", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("script.yaml", SCRIPT);
  const file = await sandbox.write("not-a-folder", "x");
  for (const root of [file, "/proc/blade-storage"]) {
    for (const args of WRITERS) {
      assertUnusable(await sandbox.run(args, { env: { BLADE_STORAGE_ROOT: root } }), root, args);
    }
  }
});

Deno.test("e2e storage root: read-only root — readers work and leave it alone, writers fail clearly", async (t) => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("script.yaml", DELEGATING);
  // A first run fills the root (a session with one finished child), then it becomes read-only.
  const first = await sandbox.run(["-p", "hi", "--provider", "scripted", "--script", "script.yaml"]);
  assert.equal(first.code, 0, first.stderr);
  const [child] = await readSidecars(sandbox.storage);
  assert.ok(child !== undefined, "the first run left a child's sidecar");
  const before = (await Deno.stat(sandbox.storage)).mode;
  if (!(await mountReadOnly(sandbox.storage))) {
    await t.step({ name: "read-only bind mount not possible here", ignore: true, fn: () => {} });
    return;
  }
  try {
    for (
      const [args, shows] of [
        [["tasks", "list"], child.id],
        [["tasks", "list", "--json"], child.id],
        [["tasks", "output", child.id], "found it"],
        [["agents", "list"], "Explore"],
        [["agents", "show", "Explore"], "Explore"],
        [["agents", "validate"], ""],
      ] as const
    ) {
      const r = await sandbox.run([...args]);
      assert.equal(r.code, 0, `blade ${args.join(" ")}:\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /internal error/);
      assert.ok(r.stdout.includes(shows), `blade ${args.join(" ")}:\n${r.stdout}`);
    }
    assert.equal((await Deno.stat(sandbox.storage)).mode, before, "a reader must not chmod the root");
    for (const args of [WRITERS[0]!, ["trust", "."]]) {
      assertUnusable(await sandbox.run(args), sandbox.storage, args);
    }
  } finally {
    await new Deno.Command("umount", { args: [sandbox.storage] }).output();
  }
});

Deno.test("e2e storage root: a relative BLADE_STORAGE_ROOT is inside the folder Blade was run from", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("script.yaml", SCRIPT);
  const r = await sandbox.run(["-p", "hi", "--provider", "scripted", "--script", "script.yaml"], {
    env: { BLADE_STORAGE_ROOT: "rel-store" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await Deno.stat(`${sandbox.workspace}/rel-store/projects`)).isDirectory, true);
  // Under `deno task` the process runs in the Blade checkout; INIT_CWD names the user's folder.
  const elsewhere = `${sandbox.root}/elsewhere`;
  await Deno.mkdir(elsewhere);
  const viaTask = await sandbox.run(["tasks", "list"], {
    cwd: elsewhere,
    env: { BLADE_STORAGE_ROOT: "rel-store", INIT_CWD: sandbox.workspace },
  });
  assert.equal(viaTask.code, 0, viaTask.stderr);
  assert.match(viaTask.stdout, /main|completed|No subagent/);
  assert.equal(await Deno.stat(`${elsewhere}/rel-store`).then(() => true, () => false), false);
});
