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
  check: { path: string; ready?: (body: string) => boolean },
): Promise<void> {
  let last = "";
  for (let i = 0; i < 600; i++) {
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

async function waitHealthy(node: { monitorPort: number; name: string }, size: number): Promise<void> {
  await waitReady(node.monitorPort, node.name, { path: "/healthz" });
  if (size > 1) {
    await waitReady(node.monitorPort, node.name, { path: "/jsz", ready: (b) => knowsMetaLeader(b, size) });
  }
}

/**
 * Starts `size` JetStream nodes (1: a single server; 3: a cluster whose nodes route to each other).
 * The folder `dir` holds each node's store; it is the caller's to remove. `started` (default all):
 * only the first ones run now, the others when their `restart()` is called — a cluster without its
 * quorum, whose JetStream answers nothing yet; then only that the started ones listen is awaited.
 */
export async function startNats(
  binary: string,
  options: { size: 1 | 3; dir: string; noAdvertise?: boolean; started?: number },
): Promise<NatsCluster> {
  const specs = Array.from({ length: options.size }, (_, i) => ({
    name: `n${i + 1}`,
    port: freePort(),
    clusterPort: freePort(),
    monitorPort: freePort(),
  }));
  const nodes: NatsNode[] = [];
  for (const spec of specs) {
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
    let child: Deno.ChildProcess | undefined;
    const start = () => {
      child = new Deno.Command(binary, { args, stdout: "null", stderr: "null", stdin: "null" }).spawn();
    };
    if (nodes.length < (options.started ?? options.size)) start();
    nodes.push({
      name: spec.name,
      url: `nats://127.0.0.1:${spec.port}`,
      port: spec.port,
      async kill() {
        if (child === undefined) return;
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
        await child.status;
        child = undefined;
      },
      async restart() {
        if (child !== undefined) return;
        start();
        await waitHealthy(spec, options.size);
      },
    });
  }
  const started = specs.slice(0, options.started ?? options.size);
  if (started.length < specs.length) {
    await Promise.all(started.map((s) => waitReady(s.monitorPort, s.name, { path: "/varz" })));
  } else await Promise.all(specs.map((s) => waitHealthy(s, options.size)));
  return {
    nodes,
    url: nodes.map((n) => n.url).join(","),
    async [Symbol.asyncDispose]() {
      await Promise.all(nodes.map((n) => n.kill()));
    },
  };
}
