// Owns the `--store` value (docs/guides/remote.md): which store a run uses, parsed and checked before
// anything connects. Pure; no I/O. `nats://host:port[,host:port…]` selects the NATS JetStream store,
// `tls://…` the same over TLS; anything else is refused with a usage error (exit 2).

import { BladeError } from "../errors.ts";

/** Where the NATS store lives: the servers to try, and whether the connection must use TLS. */
export interface NatsStoreUrl {
  kind: "nats";
  /** `host:port` of each server, in the order given. */
  servers: string[];
  tls: boolean;
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?):([0-9]{1,5})$/;

/** Parses a `--store` value; BladeError `store_url_invalid` (exit 2) when it is not one Blade knows. */
export function parseStoreUrl(value: string): NatsStoreUrl {
  const refuse = (why: string) =>
    new BladeError("store_url_invalid", `Invalid --store ${JSON.stringify(value.slice(0, 200))}: ${why}`, {
      hint: "Use nats://host:port (several servers separated by commas), or tls://host:port for TLS.",
      exitCode: 2,
    });
  const match = /^(nats|tls):\/\/(.*)$/.exec(value);
  if (match === null) throw refuse("the scheme must be nats:// or tls://");
  const [, scheme, rest] = match as unknown as [string, string, string];
  if (rest.includes("@")) throw refuse("credentials do not belong in the URL; use --store-creds");
  // Later servers may repeat the scheme ("nats://a:4222,nats://b:4222"); it must be the same one.
  const servers = rest.split(",").map((s) => s.trim().replace(/\/$/, "").replace(`${scheme}://`, ""));
  for (const server of servers) {
    const hostPort = HOST_PORT.exec(server);
    if (hostPort === null) throw refuse(`${JSON.stringify(server)} is not host:port`);
    const port = Number(hostPort[2]);
    if (port < 1 || port > 65535) throw refuse(`port ${port} is out of range`);
  }
  return { kind: "nats", servers, tls: scheme === "tls" };
}
