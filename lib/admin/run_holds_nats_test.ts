// `tasks clean` with a shared store (run_holds.ts): the parents' inboxes are the NATS store's and a
// parent a worker runs holds its lease in the store's lease bucket — both consulted on a real
// nats-server; an inbox file the parent does not use any more is not what decides.
import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { FakeClock, FakeProcess } from "../testing/fakes.ts";
import { FIXTURE_TIME, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { findNatsServer, startNats } from "../testing/nats_server.ts";
import { storageLayout } from "../config/storage.ts";
import { summarize } from "../store/run_summary.ts";
import { connectNats } from "../remote/nats_link.ts";
import { parseStoreUrl } from "../remote/store_url.ts";
import { INBOX_STREAM, INBOX_SUBJECTS, NatsInbox } from "../remote/nats_inbox.ts";
import { NatsLeases } from "../remote/nats_lease.ts";
import { keyOfId } from "../remote/nats_keys.ts";
import { heldRuns } from "./run_holds.ts";

const PROJECT = "/home/dev/project";
const binary = await findNatsServer();
if (binary === null) {
  Deno.test({
    name: "tasks clean holds (NATS): skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("tasks clean holds with a shared store: its inbox's pending notice and a worker's live lease keep runs", async () => {
    const root = await Deno.makeTempDir({ prefix: "blade-holds-nats-" });
    await using nats = await startNats(binary, { size: 1, dir: `${root}/nats` });
    await using link = await connectNats(parseStoreUrl(nats.url));
    const clock = new FakeClock(FIXTURE_TIME);
    const stream = await link.stream(INBOX_STREAM, { subjects: INBOX_SUBJECTS, replicas: 1 });
    const leaseBucket = await link.bucket("holds_leases", { replicas: 1 });
    const parents = {
      quiet: "session-quiet000000000000001",
      remote: "agent-remoteparent00000000001",
      expired: "agent-expiredparent0000000001",
    };
    await new NatsInbox(stream, parents.quiet, { clock: new FakeClock(1) }).enqueue({
      inboxId: "background-subagent-completion:agent-notice-pending",
      kind: "completion",
      text: "<notice/>",
      createdAt: FIXTURE_TIME,
      agentId: "agent-notice-pending",
    });
    // A worker holds the remote parent's lease for 60 s; the other parent's (30 s) will have run out.
    await new NatsLeases(leaseBucket, { clock, machine: "worker-a", ttlMs: 60_000 }).tryAcquire(
      parents.remote,
      {
        pid: 4242,
      },
    );
    await new NatsLeases(leaseBucket, { clock, machine: "worker-b", ttlMs: 30_000 }).tryAcquire(
      parents.expired,
      {
        pid: 4343,
      },
    );
    const runs: [string, string][] = [
      ["agent-notice-pending", parents.quiet],
      ["agent-notice-taken", parents.quiet],
      ["agent-parent-remote", parents.remote],
      ["agent-parent-expired", parents.expired],
    ];
    const summaries = runs.map(([id, parent]) =>
      summarize({
        ...sidecarFixture(id, { parentSessionId: parent, parentProjectPath: PROJECT }),
        status: "completed",
      })
    );
    clock.advance(35_000);
    const held = await heldRuns({
      fs: realFs(),
      clock,
      process: new FakeProcess(),
      layout: storageLayout(root),
      inboxOf: (session) => new NatsInbox(stream, session, { clock: new FakeClock(1) }),
      leaseEntry: async (session) => (await leaseBucket.get(keyOfId(session)))?.text ?? null,
    }, summaries);
    const why = Object.fromEntries(summaries.map((s) => [s.id, held(s)]));
    assert.match(why["agent-notice-pending"]!, /completion notice still waits in the inbox/);
    assert.equal(why["agent-notice-taken"], undefined);
    assert.match(why["agent-parent-remote"]!, /is running \(process 4242 on worker-a\)/);
    assert.equal(why["agent-parent-expired"], undefined);
    // An unreadable shared lease keeps the runs.
    const broken = await heldRuns({
      fs: realFs(),
      clock,
      process: new FakeProcess(),
      layout: storageLayout(root),
      inboxOf: (session) => new NatsInbox(stream, session, { clock: new FakeClock(1) }),
      leaseEntry: () => Promise.reject(new Error("no servers")),
    }, summaries);
    assert.match(broken(summaries[3]!)!, /in the shared store cannot be read/);
    await link.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  });
}
