// `--store nats://…` through the real CLI (docs/guides/remote.md): a run's child records go to the
// NATS store (none to the local files), redacted, with the writer's machine; `blade tasks` reads them
// back from there; the process exits once done (the App closes the connection); a bad URL is a usage
// error and a store that does not answer is one clear line, exit 1.

import assert from "node:assert/strict";
import { bladeSandbox, readSidecars } from "./support/blade.ts";
import { findNatsServer, startNats } from "../lib/testing/nats_server.ts";
import { connectNats } from "../lib/remote/nats_link.ts";
import { parseStoreUrl } from "../lib/remote/store_url.ts";
import { keyOfId } from "../lib/remote/nats_keys.ts";
import { SIDECAR_BUCKET } from "../lib/remote/lazy_nats_store.ts";

const SECRET = "sk-ant-e2e-store-secret-0123456789";
const DELEGATING = `agents:
  main:
    - turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "Look", prompt: "Look around with ${SECRET}." }
        - text: "done"
  Explore:
    - turns: [{ text: "found it" }]
`;

const binary = await findNatsServer();

if (binary === null) {
  Deno.test({
    name: "e2e --store nats: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("e2e --store nats: records go to the shared store, redacted, with the machine; tasks reads them", async () => {
    await using sandbox = await bladeSandbox();
    await using nats = await startNats(binary, { size: 1, dir: `${sandbox.root}/nats` });
    await sandbox.write("script.yaml", DELEGATING);
    const env = { ANTHROPIC_API_KEY: SECRET };
    const store = ["--store", nats.url];
    const run = await sandbox.run(
      ["-p", "hi", "--provider", "scripted", "--script", "script.yaml", ...store],
      {
        env,
      },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /done/);
    assert.deepEqual(await readSidecars(sandbox.storage), [], "no record in the local file store");

    const listed = await sandbox.run(["tasks", "list", "--json", ...store], { env });
    assert.equal(listed.code, 0, listed.stderr);
    const [child, ...more] = JSON.parse(listed.stdout) as { id: string; status: string }[];
    assert.equal(more.length, 0);
    assert.equal(child?.status, "completed");
    const output = await sandbox.run(["tasks", "output", child.id, ...store], { env });
    assert.equal(output.code, 0, output.stderr);
    assert.match(output.stdout, /found it/);
    // Without --store the same folder has no runs: the file store was never written.
    const local = await sandbox.run(["tasks", "list", "--json"]);
    assert.deepEqual(JSON.parse(local.stdout), []);

    await using link = await connectNats(parseStoreUrl(nats.url));
    const bucket = await link.bucket(SIDECAR_BUCKET, { replicas: 1 });
    const stored = await bucket.get(keyOfId(child.id));
    assert.ok(stored !== null);
    assert.ok(!stored.text.includes(SECRET), "the key never reaches the store");
    assert.match(stored.text, /Look around with \[REDACTED\]/);
    assert.equal(JSON.parse(stored.text).machine, Deno.hostname());
  });

  Deno.test("e2e --store: a bad URL is a usage error; a store that does not answer is one line, exit 1", async () => {
    await using sandbox = await bladeSandbox();
    const bad = await sandbox.run(["tasks", "list", "--store", "http://127.0.0.1:4222"]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(
      bad.stderr,
      /Invalid --store "http:\/\/127\.0\.0\.1:4222": the scheme must be nats:\/\/ or tls:\/\//,
    );
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const down = await sandbox.run(["tasks", "list", "--store", `nats://127.0.0.1:${port}`]);
    assert.equal(down.code, 1, down.stderr);
    assert.match(down.stderr, new RegExp(`^blade: Cannot reach the NATS store at 127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(down.stderr, /^ {4}at /m);
    const creds = await sandbox.write("bad.creds", "not a credential");
    const refused = await sandbox.run([
      "tasks",
      "list",
      "--store",
      `nats://127.0.0.1:${port}`,
      "--store-creds",
      creds,
    ]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /is neither a NATS \.creds file nor a user nkey seed/);
  });
}
