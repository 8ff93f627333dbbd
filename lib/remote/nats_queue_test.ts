// lib/remote/nats_queue.ts on a real nats-server: a taker whose shared consumer is gone from under it
// (deleted by an operator, or never made for real — a cluster that lost its quorum answered its info
// and then no pull: "heartbeats missed") opens it afresh on its next call and takes the jobs waiting
// in the stream. A taker that kept the old consumer failed every pull for good: its worker never took
// a job again (the "no quorum" test of lazy_nats_store_test.ts saw that consumer once in CI).

import assert from "node:assert/strict";
import { realClock } from "../sys/clock.ts";
import { findNatsServer, startNats } from "../testing/nats_server.ts";
import { connectNats } from "./nats_link.ts";
import { parseStoreUrl } from "./store_url.ts";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";

const binary = await findNatsServer();

if (binary === null) {
  Deno.test({
    name: "NATS work queue: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("NATS work queue: a taker whose consumer was deleted makes it again and takes the next job", async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-nats-queue-gone-" });
    await using nats = await startNats(binary, { size: 1, dir });
    await using link = await connectNats(parseStoreUrl(nats.url), { clock: realClock() });
    const admin = await connect({ servers: nats.url.split(",") });
    try {
      const options = { subject: "jobs_gone.run", replicas: 1, ackWaitMs: 10_000 };
      const queue = await link.queue("jobs_gone", options);
      await queue.publish('{"job":1}', "job-1");
      const first = await queue.next(1000);
      assert.equal(first?.text, '{"job":1}');
      await first!.ack();

      const jsm = await jetstreamManager(admin, { checkAPI: false });
      await jsm.consumers.delete("jobs_gone", "blade_workers");
      await queue.publish('{"job":2}', "job-2");
      // The pull to the deleted consumer fails (or finds nothing); a later one has made it again.
      const errors: string[] = [];
      let job = null;
      for (let i = 0; i < 3 && job === null; i++) {
        job = await queue.next(1000).catch((e: Error) => (errors.push(e.message), null));
      }
      assert.equal(
        job?.text,
        '{"job":2}',
        `the job after the delete; errors meanwhile: ${errors.join(" | ")}`,
      );
      await job!.ack();
      assert.equal(await queue.pending(), 0);
      const consumer = await jsm.consumers.info("jobs_gone", "blade_workers");
      assert.equal(consumer.config.ack_wait, 10_000 * 1_000_000, "made again with the queue's ack wait");
    } finally {
      await admin.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  });
}
