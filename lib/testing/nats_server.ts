// Owns starting real `nats-server` processes for tests (test-only): one JetStream node, or a 3-node
// JetStream cluster on loopback, each with its own store folder and free ports, readiness awaited on
// the monitoring endpoint's /healthz. Tests skip, with a message, only where nats-server is absent.

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

async function waitHealthy(monitorPort: number, name: string): Promise<void> {
  let last = "";
  for (let i = 0; i < 300; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${monitorPort}/healthz`);
      last = await response.text();
      if (response.ok) return;
    } catch (e) {
      last = String(e);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server ${name} did not become healthy: ${last}`);
}

/**
 * Starts `size` JetStream nodes (1: a single server; 3: a cluster whose nodes route to each other).
 * The folder `dir` holds each node's store; it is the caller's to remove.
 */
export async function startNats(
  binary: string,
  options: { size: 1 | 3; dir: string; noAdvertise?: boolean },
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
    start();
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
        await waitHealthy(spec.monitorPort, spec.name);
      },
    });
  }
  // A cluster's /healthz answers ok once JetStream has its meta leader.
  await Promise.all(specs.map((s) => waitHealthy(s.monitorPort, s.name)));
  return {
    nodes,
    url: nodes.map((n) => n.url).join(","),
    async [Symbol.asyncDispose]() {
      await Promise.all(nodes.map((n) => n.kill()));
    },
  };
}
