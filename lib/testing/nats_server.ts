// Owns starting real `nats-server` processes for tests (test-only): one JetStream node, or a 3-node
// JetStream cluster on loopback, each with its own store folder and free ports, readiness awaited on
// the monitoring endpoint: /healthz, and on a cluster every node knowing its JetStream meta leader
// (/jsz). Tests skip, with a message, only where nats-server is absent.

/** The nats-server binary on PATH (or /usr/sbin), or null when it is not installed. */
export async function findNatsServer(): Promise<string | null> {
  for (const candidate of ["nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server"]) {
    try {
      const out = await new Deno.Command(candidate, { args: ["--version"], stdout: "null", stderr: "null" })
        .output();
      if (out.success) return candidate;
    } catch { /* not this one */ }
  }
  return null;
}

/** One running nats-server. */
export interface NatsNode {
  name: string;
  /** `nats://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** SIGKILLs the process and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store folder, and waits until it is healthy. */
  restart(): Promise<void>;
}

export interface NatsCluster extends AsyncDisposable {
  nodes: NatsNode[];
  /** Every node's URL, comma-separated: what `--store` takes. */
  url: string;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Waits until the monitoring endpoint's `path` answers ok and `ready` holds for its body: /healthz
 * (nats-server 2.9 says ok before a cluster's JetStream has a meta leader), /jsz (the meta leader).
 */
async function waitReady(
  monitorPort: number,
  name: string,
  check: { path: string; ready?: (body: string) => boolean; gone: () => string | undefined },
): Promise<void> {
  let last = "";
  for (let i = 0; i < 600; i++) {
    // The process ended (its port was taken meanwhile by another process): no use waiting.
    const gone = check.gone();
    if (gone !== undefined) throw new Error(`nats-server ${name} ${gone} before it was ready`);
    try {
      const response = await fetch(`http://127.0.0.1:${monitorPort}${check.path}`);
      last = await response.text();
      if (response.ok && (check.ready?.(last) ?? true)) return;
    } catch (e) {
      last = String(e);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server ${name} did not become ready (${check.path}): ${last.slice(0, 500)}`);
}

/** Whether a cluster node's /jsz names the JetStream meta leader of a cluster of `size`. */
function knowsMetaLeader(body: string, size: number): boolean {
  const meta =
    (JSON.parse(body) as { meta_cluster?: { leader?: string; cluster_size?: number } }).meta_cluster;
  return (meta?.leader ?? "") !== "" && meta?.cluster_size === size;
}

async function waitHealthy(
  node: { monitorPort: number; name: string; gone: () => string | undefined },
  size: number,
): Promise<void> {
  const { gone } = node;
  await waitReady(node.monitorPort, node.name, { path: "/healthz", gone });
  if (size > 1) {
    await waitReady(node.monitorPort, node.name, {
      path: "/jsz",
      ready: (b) => knowsMetaLeader(b, size),
      gone,
    });
  }
}

/**
 * Keeps `port` bound for a node that starts later. Every connection is closed at once, as a stopped
 * node's port would refuse it: a client given the node's address moves on to the next server instead
 * of waiting for a greeting that never comes (it timed out a store's connect once under load).
 */
function holdPort(port: number): Deno.Listener {
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  void (async () => {
    for await (const connection of listener) connection.close();
  })().catch(() => {});
  return listener;
}

/**
 * Starts `size` JetStream nodes (1: a single server; 3: a cluster whose nodes route to each other).
 * The folder `dir` holds each node's store; it is the caller's to remove. `started` (default all):
 * only the first ones run now, the others when their `restart()` is called — a cluster without its
 * quorum, whose JetStream answers nothing yet; then only that the started ones listen is awaited.
 */
export async function startNats(binary: string, options: NatsOptions): Promise<NatsCluster> {
  // A free port is free when it is picked, not when the server binds it: another process (another
  // test's cluster) may take it in between, and that server exits. Then the cluster starts again, on
  // other ports, in a folder of its own.
  for (let attempt = 1;; attempt++) {
    const dir = attempt === 1 ? options.dir : `${options.dir}/attempt${attempt}`;
    try {
      return await startOnce(binary, { ...options, dir });
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

interface NatsOptions {
  size: 1 | 3;
  dir: string;
  noAdvertise?: boolean;
  started?: number;
}

interface NodeSpec {
  name: string;
  port: number;
  clusterPort: number;
  monitorPort: number;
}

/** The command line of node `spec`: its ports, its store folder, and on a cluster its routes to the others. */
function serverArgs(spec: NodeSpec, o: { specs: NodeSpec[]; options: NatsOptions }): string[] {
  const { specs, options } = o;
  const args = [
    "-a",
    "127.0.0.1",
    "-p",
    String(spec.port),
    "-m",
    String(spec.monitorPort),
    "-n",
    spec.name,
    "-js",
    "-sd",
    `${options.dir}/${spec.name}`,
  ];
  if (options.size > 1) {
    const routes = specs.filter((s) => s !== spec).map((s) => `nats://127.0.0.1:${s.clusterPort}`);
    args.push(
      "--cluster_name",
      "blade",
      "-cluster",
      `nats://127.0.0.1:${spec.clusterPort}`,
      "-routes",
      routes.join(","),
      // Clients learn no other member: one given a single node's URL is cut off when that node dies.
      ...(options.noAdvertise === true ? ["--no_advertise=true"] : []),
    );
  }
  return args;
}

async function startOnce(binary: string, options: NatsOptions): Promise<NatsCluster> {
  const specs = Array.from({ length: options.size }, (_, i) => ({
    name: `n${i + 1}`,
    port: freePort(),
    clusterPort: freePort(),
    monitorPort: freePort(),
    /** Why its process is no more (undefined while it runs or before it starts). */
    gone: (): string | undefined => undefined,
  }));
  const nodes: NatsNode[] = [];
  for (const spec of specs) {
    const args = serverArgs(spec, { specs, options });
    let child: Deno.ChildProcess | undefined;
    let exited: string | undefined;
    // A node started later (`started`) keeps its ports bound meanwhile: a port picked free and left
    // unbound for seconds may be taken by any connection's local port, and the node could not start.
    let held: Deno.Listener[] = [];
    const release = () => {
      for (const listener of held) listener.close();
      held = [];
    };
    const start = () => {
      release();
      exited = undefined;
      const spawned = new Deno.Command(binary, { args, stdout: "null", stderr: "null", stdin: "null" })
        .spawn();
      child = spawned;
      void spawned.status.then((s) => {
        if (child === spawned) exited = `exited with code ${s.code}`;
      });
    };
    spec.gone = () => exited;
    if (nodes.length < (options.started ?? options.size)) start();
    else held = [spec.port, spec.clusterPort, spec.monitorPort].map(holdPort);
    nodes.push({
      name: spec.name,
      url: `nats://127.0.0.1:${spec.port}`,
      port: spec.port,
      async kill() {
        release();
        if (child === undefined) return;
        const killed = child;
        child = undefined;
        try {
          killed.kill("SIGKILL");
        } catch { /* already gone */ }
        await killed.status;
        exited = "was stopped";
      },
      async restart() {
        if (child !== undefined) return;
        start();
        await waitHealthy(spec, options.size);
      },
    });
  }
  const started = specs.slice(0, options.started ?? options.size);
  const cluster: NatsCluster = {
    nodes,
    url: nodes.map((n) => n.url).join(","),
    async [Symbol.asyncDispose]() {
      await Promise.all(nodes.map((n) => n.kill()));
    },
  };
  const waits = started.length < specs.length
    ? started.map((s) => waitReady(s.monitorPort, s.name, { path: "/varz", gone: s.gone }))
    : specs.map((s) => waitHealthy(s, options.size));
  try {
    await Promise.all(waits);
  } catch (error) {
    // Stopped, the other nodes' waits end at once (their processes are gone): none is left running.
    await cluster[Symbol.asyncDispose]();
    await Promise.allSettled(waits);
    throw error;
  }
  return cluster;
}
