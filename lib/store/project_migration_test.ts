// project_migration.ts on real files: a folder two projects shared is split between them, a folder of
// one project moves whole, a second run changes nothing, and a run stopped at any rename, folder fsync
// or the marker's write (the process died there) is finished by the next run with every file in exactly
// one place.

import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { FaultFs, type FaultOp } from "../testing/fault_fs.ts";
import { escapeProjectPath, projectFolderName, storageLayout } from "../config/storage.ts";
import { migrateProjectFolders } from "./project_migration.ts";

const fs = realFs();
const A = "/x/a/b";
const B = "/x/a-b";

function transcript(projectPath: string, sessionId: string): string {
  const line = (seq: number, type: string) =>
    JSON.stringify({ seq, id: `e${seq}`, sessionId, projectPath, timestamp: "t", type, data: {} });
  return `${line(1, "session_created")}\n${line(2, "turn_started")}\n`;
}

/** An old-layout storage root: `/x/a/b` and `/x/a-b` share `-x-a-b`; `/solo` has its own folder. */
async function oldLayout(root: string): Promise<void> {
  const shared = `${root}/projects/${escapeProjectPath(A)}`;
  const solo = `${root}/projects/${escapeProjectPath("/solo")}`;
  for (const d of [shared, `${shared}/.locks`, solo]) await Deno.mkdir(d, { recursive: true });
  await Deno.writeTextFile(`${shared}/session-a.jsonl`, transcript(A, "session-a"));
  await Deno.writeTextFile(`${shared}/session-a.inbox.json`, "{}\n");
  await Deno.writeTextFile(`${shared}/agent-a1.jsonl`, transcript(A, "agent-a1"));
  await Deno.writeTextFile(`${shared}/session-b.jsonl`, transcript(B, "session-b"));
  await Deno.writeTextFile(`${shared}/prompt-history.json`, "[]\n");
  await Deno.writeTextFile(`${shared}/.locks/x.lock`, "{}");
  await Deno.writeTextFile(`${solo}/session-s.jsonl`, transcript("/solo", "session-s"));
  await Deno.writeTextFile(`${solo}/prompt-history.json`, "[]\n");
}

/** Every file below `root/projects`, relative, sorted. */
async function tree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, rel: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(`${dir}/${e.name}`, `${rel}${e.name}/`);
      else out.push(`${rel}${e.name}`);
    }
  };
  await walk(`${root}/projects`, "");
  return out.sort();
}

const WANT = [
  ".layout",
  `${escapeProjectPath(A)}/.locks/x.lock`,
  `${escapeProjectPath(A)}/.unowned-prompt-history.json`, // two projects used the folder: whose is unknown
  `${projectFolderName(A)}/agent-a1.jsonl`,
  `${projectFolderName(A)}/session-a.inbox.json`,
  `${projectFolderName(A)}/session-a.jsonl`,
  `${projectFolderName(B)}/session-b.jsonl`,
  `${projectFolderName("/solo")}/prompt-history.json`,
  `${projectFolderName("/solo")}/session-s.jsonl`,
].sort();

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "blade-migrate-" });
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("projectFolderName: /x/a/b and /x/a-b get their own folders; a deep path keeps a legal name", () => {
  assert.equal(escapeProjectPath(A), escapeProjectPath(B));
  assert.notEqual(projectFolderName(A), projectFolderName(B));
  assert.match(projectFolderName(A), /^-x-a-b-[0-9a-f]{16}$/);
  const deep = `/${"d".repeat(60)}`.repeat(20);
  assert.ok(projectFolderName(deep).length <= 137);
  assert.equal(storageLayout("/s").projectDir(A), `/s/projects/${projectFolderName(A)}`);
});

Deno.test("migrateProjectFolders: a shared folder is split by each transcript's project; a second run does nothing", async () => {
  await withRoot(async (root) => {
    await oldLayout(root);
    const layout = storageLayout(root);
    const first = await migrateProjectFolders(fs, layout);
    assert.equal(first.moved.length, 6);
    assert.deepEqual(first.left, [
      `${root}/projects/${escapeProjectPath(A)}/prompt-history.json (whose project it is cannot be told)`,
    ]);
    assert.deepEqual(await tree(root), WANT);
    assert.equal(
      await Deno.readTextFile(`${layout.projectDir(B)}/session-b.jsonl`),
      transcript(B, "session-b"),
    );
    assert.deepEqual(await migrateProjectFolders(fs, layout), { moved: [], left: [] });
    assert.deepEqual(await tree(root), WANT);
  });
});

Deno.test("migrateProjectFolders: a storage root without projects, or already migrated, is left alone", async () => {
  await withRoot(async (root) => {
    assert.deepEqual(await migrateProjectFolders(fs, storageLayout(root)), { moved: [], left: [] });
    assert.equal(await fs.lstat(`${root}/projects`), null);
  });
});

Deno.test("migrateProjectFolders: stopped at any rename, folder fsync or marker write, the next run finishes it", async () => {
  const points: { op: FaultOp; after: number }[] = [
    ...Array.from({ length: 7 }, (_, after) => ({ op: "rename" as const, after })), // 6 moves and 1 hiding
    ...Array.from({ length: 6 }, (_, after) => ({ op: "syncDir" as const, after })),
    { op: "writeAtomic", after: 0 },
  ];
  for (const point of points) {
    await withRoot(async (root) => {
      await oldLayout(root);
      const layout = storageLayout(root);
      const dying = new FaultFs(fs, [{ op: point.op, path: () => true, after: point.after }]);
      await assert.rejects(() => migrateProjectFolders(dying.fs, layout), `${point.op} ${point.after}`);
      assert.equal(dying.hits.length, 1);
      // Every file is in exactly one place meanwhile, and no marker says it is done.
      const between = await tree(root);
      assert.equal(between.filter((f) => f.endsWith(".jsonl")).length, 4, between.join(", "));
      assert.ok(!between.includes(".layout"));
      await migrateProjectFolders(fs, layout);
      assert.deepEqual(await tree(root), WANT, `${point.op} after ${point.after}`);
    });
  }
});
