import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { FakeClock, FakeProcess } from "../testing/fakes.ts";
import { FIXTURE_TIME, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { storageLayout } from "../config/storage.ts";
import { Inbox } from "../session/inbox.ts";
import { leasePath } from "../session/lease.ts";
import { MemorySidecarStore } from "../store/memory_store.ts";
import { summarize } from "../store/run_summary.ts";
import { TaskAdmin } from "./task_admin.ts";
import { heldRuns } from "./run_holds.ts";

const PROJECT = "/home/dev/project";
const DAY = 86_400_000;
const IDENTITY = { platform: "linux" as const, fingerprint: "a".repeat(64) };

Deno.test("tasks clean keeps a run whose notice is pending and every run of a running parent", async () => {
  const root = await Deno.makeTempDir({ prefix: "blade-holds-" });
  try {
    const fs = realFs();
    const clock = new FakeClock(FIXTURE_TIME);
    const process = new FakeProcess();
    const layout = storageLayout(root);
    const store = new MemorySidecarStore({ clock });
    // Parents: "quiet" (ended; one notice still pending), "live" (running: its lease has a live holder),
    // "gone" (its lease names a dead process), "broken" (its inbox cannot be read).
    const parents = {
      quiet: "session-quiet000000000000001",
      live: "session-live0000000000000001",
      gone: "session-gone0000000000000001",
      broken: "session-broke000000000000001",
    };
    const runs: [string, string][] = [
      ["agent-notice-pending", parents.quiet],
      ["agent-notice-taken", parents.quiet],
      ["agent-parent-live", parents.live],
      ["agent-parent-dead", parents.gone],
      ["agent-inbox-broken", parents.broken],
    ];
    for (const [id, parent] of runs) {
      await store.create(sidecarFixture(id, { parentSessionId: parent, parentProjectPath: PROJECT }));
      await store.markCompleted(id, {
        status: "completed",
        result: { success: true, message: "ok" },
        completedAt: FIXTURE_TIME,
      });
    }
    await new Inbox({ fs, clock, path: layout.inboxPath(PROJECT, parents.quiet) }).enqueue({
      inboxId: "background-subagent-completion:agent-notice-pending",
      kind: "completion",
      text: "<notice/>",
      createdAt: FIXTURE_TIME,
      agentId: "agent-notice-pending",
    });
    await Deno.writeTextFile(layout.inboxPath(PROJECT, parents.broken), "{not json");
    const lease = async (session: string, pid: number) => {
      const path = await leasePath(layout, PROJECT, session);
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(
        path,
        JSON.stringify({ sessionId: session, pid, identity: IDENTITY, acquiredAt: 1 }),
      );
    };
    process.spawnFake(5001, IDENTITY);
    await lease(parents.live, 5001);
    await lease(parents.gone, 5002); // never spawned: dead

    const held = await heldRuns(
      { fs, clock, process, layout },
      (await store.listAll()).records.map(summarize),
    );
    const why = Object.fromEntries(runs.map(([id]) => [
      id,
      held(summarize(sidecarFixture(id, {
        parentSessionId: runs.find((r) => r[0] === id)![1],
        parentProjectPath: PROJECT,
      }))),
    ]));
    assert.match(why["agent-notice-pending"]!, /completion notice still waits in the inbox/);
    assert.equal(why["agent-notice-taken"], undefined);
    assert.match(why["agent-parent-live"]!, /is running \(process 5001\)/);
    assert.equal(why["agent-parent-dead"], undefined);
    assert.match(why["agent-inbox-broken"]!, /cannot be read/);

    clock.advance(8 * DAY);
    const admin = new TaskAdmin({ store, clock, process, workspace: PROJECT });
    const { removed } = await admin.clean(7 * DAY, {
      held: (list) => heldRuns({ fs, clock, process, layout }, list),
    });
    assert.equal(removed, 2);
    assert.deepEqual((await store.listAll()).records.map((r) => r.id).sort(), [
      "agent-inbox-broken",
      "agent-notice-pending",
      "agent-parent-live",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
