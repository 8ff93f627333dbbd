// lib/remote/nats_link.ts on a real 3-node nats-server cluster: a read through a consumer (an object's
// chunks — the snapshot a remote child's job checks out) whose stream leader is SIGKILLed mid-read is
// given up at its bound and tried again, and returns the whole object. Without the bound such a read
// waited for good (measured: still waiting after 300 s in about half the tries), and the job with it,
// while its worker kept renewing the run's lease: the run sat forever (issue 36).

import assert from "node:assert/strict";
import { findNatsServer, startNats } from "../testing/nats_server.ts";
import { connectNats } from "./nats_link.ts";
import { parseStoreUrl } from "./store_url.ts";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";

const binary = await findNatsServer();

if (binary === null) {
  Deno.test({
    name: "NATS link: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("NATS link: an object read whose stream leader is SIGKILLed mid-read is tried again and returns it whole", async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-nats-link-" });
    await using nats = await startNats(binary, { size: 3, dir });
    await using link = await connectNats(parseStoreUrl(nats.url), { readWithinMs: 4_000 });
    const admin = await connect({ servers: nats.url.split(","), maxReconnectAttempts: -1 });
    try {
      const jsm = await jetstreamManager(admin, { checkAPI: false });
      const objects = await link.objects("bundles_kill", { replicas: 3 });
      // Large enough that its chunks are still streaming when the leader dies.
      const blob = new Uint8Array(20_000_000).map((_, i) => i % 251);
      await objects.put("snapshot", blob);
      for (let round = 0; round < 3; round++) {
        const leader = (await jsm.streams.info("OBJ_bundles_kill")).cluster?.leader;
        const victim = nats.nodes.find((n) => n.name === leader);
        assert.ok(victim, `the stream's leader (${leader}) is one of the nodes`);
        const reading = objects.get("snapshot");
        await new Promise((resolve) => setTimeout(resolve, 30));
        await victim.kill();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), 60_000));
        const got = await Promise.race([reading, late]).finally(() => clearTimeout(timer));
        assert.notEqual(
          got,
          "late",
          `round ${round}: the read was still waiting 60 s after ${victim.name} died`,
        );
        assert.ok(
          got instanceof Uint8Array && got.length === blob.length,
          `round ${round}: the whole object`,
        );
        assert.deepEqual(got.subarray(0, 1000), blob.subarray(0, 1000));
        assert.deepEqual(got.subarray(-1000), blob.subarray(-1000));
        await victim.restart();
      }
    } finally {
      await admin.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  });
}
