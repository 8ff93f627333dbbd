// Test support for remote children (docs/guides/remote.md): a real NATS JetStream (one node or a
// 3-node cluster on loopback), a git workspace for the parent, and `blade worker` processes, each
// with its own HOME, storage root and working folder (separate machines as far as Blade can tell), all
// run through the real CLI (spawnBlade) with the scripted provider. Workers can be SIGKILLed, stopped
// and continued, and started again; their stderr lines are kept for the test to read.

import { type BladeProcess, spawnBlade } from "./blade.ts";
import { type NatsCluster, startNats } from "../../lib/testing/nats_server.ts";
import { connectNats, type KvBucket, type NatsLink } from "../../lib/remote/nats_link.ts";
import { parseStoreUrl } from "../../lib/remote/store_url.ts";
import { SIDECAR_BUCKET } from "../../lib/remote/lazy_nats_store.ts";
import type { SidecarRecord } from "../../lib/store/schema.ts";

export interface FleetWorker {
  index: number;
  process: BladeProcess;
  home: string;
  /** Stops it (SIGTERM: running jobs end first) and returns what it printed on stderr. */
  stop(): Promise<string>;
}

export interface Fleet extends AsyncDisposable {
  root: string;
  nats: NatsCluster;
  /** The parent's git workspace (a repository with one commit). */
  workspace: string;
  /** `--store <url>`. */
  store: string[];
  /** The scripted provider's options for every Blade of the fleet. */
  script: string[];
  workers: FleetWorker[];
  /**
   * Starts worker `index` (again, after it was killed), with the fleet's flags; `servers` gives it only
   * those servers' URLs (to cut it off by killing them), default every node.
   */
  startWorker(index: number, options?: { servers?: string }): Promise<FleetWorker>;
  /** A connection to the store, for reading records as they are. */
  link(): Promise<NatsLink>;
  /** Every child record in the store (ids read from the bucket). */
  records(): Promise<SidecarRecord[]>;
}

export interface FleetOptions {
  nodes: 1 | 3;
  /** The cluster advertises no member to clients (a client knows only the URLs it was given). */
  noAdvertise?: boolean;
  workers: number;
  /** The scripted provider's script (YAML or JSON text) used by the parent and every worker. */
  script: string;
  workerFlags?: string[];
  /** Files of the parent's workspace (committed; a name may hold folders), plus `uncommitted` written after the commit. */
  files?: Record<string, string>;
  uncommitted?: Record<string, string>;
}

async function git(cwd: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

export async function startFleet(binary: string, o: FleetOptions): Promise<Fleet> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-fleet-" }));
  const workspace = `${root}/work`;
  await Deno.mkdir(workspace, { recursive: true });
  const write = async (name: string, text: string) => {
    await Deno.mkdir(`${workspace}/${name}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${workspace}/${name}`, text);
  };
  for (const [name, text] of Object.entries(o.files ?? { "notes.txt": "committed line\n" })) {
    await write(name, text);
  }
  await git(workspace, ["init", "-q"]);
  await git(workspace, ["add", "-A"]);
  await git(workspace, ["commit", "-q", "-m", "init"]);
  for (const [name, text] of Object.entries(o.uncommitted ?? {})) await write(name, text);
  await Deno.writeTextFile(`${root}/script.yaml`, o.script);
  const nats = await startNats(binary, {
    size: o.nodes,
    dir: `${root}/nats`,
    noAdvertise: o.noAdvertise === true,
  });
  const store = ["--store", nats.url];
  const script = ["--provider", "scripted", "--script", `${root}/script.yaml`];
  const workers: FleetWorker[] = [];
  let link: Promise<NatsLink> | undefined;
  const linked = () => (link ??= connectNats(parseStoreUrl(nats.url)));
  let bucket: Promise<KvBucket> | undefined;
  const startWorker = async (index: number, options: { servers?: string } = {}): Promise<FleetWorker> => {
    const home = `${root}/worker${index}`;
    await Deno.mkdir(`${home}/cwd`, { recursive: true });
    const its = options.servers === undefined ? store : ["--store", options.servers];
    const process = await spawnBlade(["worker", ...its, ...script, ...(o.workerFlags ?? [])], {
      cwd: `${home}/cwd`,
      env: { HOME: home, BLADE_STORAGE_ROOT: `${home}/storage` },
    });
    const stop = async () => {
      try {
        process.kill("SIGTERM");
      } catch { /* gone already */ }
      return (await process.result).stderr;
    };
    const worker: FleetWorker = { index, process, home, stop };
    workers[index] = worker;
    return worker;
  };
  for (let i = 0; i < o.workers; i++) await startWorker(i, {});
  const fleet: Fleet = {
    root,
    nats,
    workspace,
    store,
    script,
    workers,
    startWorker,
    link: linked,
    async records() {
      bucket ??= linked().then((l) => l.bucket(SIDECAR_BUCKET, { replicas: o.nodes === 3 ? 3 : 1 }));
      bucket.catch(() => bucket = undefined);
      return await recordsOf(await bucket);
    },
    async [Symbol.asyncDispose]() {
      for (const w of workers) {
        try {
          w.process.kill("SIGKILL");
        } catch { /* gone */ }
        await w.process.result.catch(() => {});
      }
      if (link !== undefined) await (await link).close().catch(() => {});
      await nats[Symbol.asyncDispose]();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
  // The test's own connection and bucket are opened now, not by the first probe: a test that must see
  // a child while it runs (seconds) lost that window under load to the probe's connect and open.
  await fleet.records().catch(() => {});
  return fleet;
}

/** Every child record in the bucket (its record keys: one token each). */
async function recordsOf(bucket: KvBucket): Promise<SidecarRecord[]> {
  const out: SidecarRecord[] = [];
  for (const key of await bucket.keys("*")) {
    const got = await bucket.get(key);
    if (got !== null) out.push(JSON.parse(got.text));
  }
  return out;
}
