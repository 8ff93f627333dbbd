// Owns the child side of a sandbox: `serveSandbox(handler)` answers the parent's requests, streams
// events, and turns uncaught errors and exits into a last message so the parent never waits forever.
// Works unchanged in a Worker (postMessage) and in a self-spawned process (stdin/stdout frames).
// Like lib/sys, this file touches Deno.* (stdin, stdout, exit) because it *is* the process boundary.
// Does not know what the child does: the handler decides.

import {
  type ChildMessage,
  decodeFrame,
  encodeFrame,
  isParentMessage,
  type ParentMessage,
  readLines,
  toWireError,
} from "./sandbox_protocol.ts";

export interface SandboxChildContext<E> {
  /** Sends one event to the parent; events keep their order relative to responses. */
  emit(event: E): void;
  /** Aborted when the parent cancels with a grace period: stop, kill what you started, answer. */
  signal: AbortSignal;
}

export type SandboxHandler<Req, Res, Ev> = (request: Req, ctx: SandboxChildContext<Ev>) => Res | Promise<Res>;

interface Port {
  send(message: ChildMessage): void;
  listen(onMessage: (message: ParentMessage) => void): void;
  /** Sends the fatal message, then ends the child. */
  die(message: ChildMessage): void;
}

/** Serves requests until the parent ends the child. Call once, from the child's entry module. */
export function serveSandbox<Req = unknown, Res = unknown, Ev = unknown>(
  handler: SandboxHandler<Req, Res, Ev>,
): void {
  const port = inWorker() ? workerPort() : processPort();
  const abort = new AbortController();
  const ctx: SandboxChildContext<Ev> = {
    emit: (value) => port.send({ t: "event", value }),
    signal: abort.signal,
  };
  const fatal = (error: unknown) => port.die({ t: "fatal", error: toWireError(error) });
  globalThis.addEventListener("error", (e) => {
    e.preventDefault();
    fatal(e.error ?? e.message);
  });
  globalThis.addEventListener("unhandledrejection", (e) => {
    e.preventDefault();
    fatal(e.reason);
  });
  port.listen(async (message) => {
    if (message.t === "abort") return abort.abort(new Error(message.reason));
    const { id, value } = message;
    try {
      const result = await handler(value as Req, ctx);
      port.send({ t: "response", id, ok: true, value: result });
    } catch (error) {
      port.send({ t: "response", id, ok: false, error: toWireError(error) });
    }
  });
  port.send({ t: "ready" });
}

function inWorker(): boolean {
  const scope = (globalThis as Record<string, unknown>).WorkerGlobalScope;
  return typeof scope === "function" && globalThis instanceof scope;
}

interface WorkerScope {
  postMessage(message: unknown): void;
  close(): void;
}

function workerPort(): Port {
  const scope = globalThis as unknown as WorkerScope;
  const post = (message: ChildMessage) => {
    try {
      scope.postMessage(message);
    } catch (error) {
      // A value that cannot be cloned: answer with the reason instead of dropping the response.
      if (message.t !== "response") throw error;
      scope.postMessage({ t: "response", id: message.id, ok: false, error: toWireError(error) });
    }
  };
  // A worker that closes or exits sends nothing to its parent; say so first.
  const close = scope.close.bind(scope);
  scope.close = () => {
    post({ t: "exit", code: 0 });
    close();
  };
  const exit = Deno.exit;
  Deno.exit = (code?: number): never => {
    post({ t: "exit", code: code ?? 0 });
    return exit(code);
  };
  return {
    send: post,
    listen(onMessage) {
      globalThis.addEventListener("message", (e: Event) => {
        const data = (e as MessageEvent).data;
        if (isParentMessage(data)) onMessage(data);
      });
    },
    die(message) {
      post(message);
      close();
    },
  };
}

function processPort(): Port {
  const encoder = new TextEncoder();
  // Synchronous, whole-frame writes: frames never interleave with each other or with stray output.
  const send = (message: ChildMessage) => {
    const bytes = encoder.encode(encodeFrame(message));
    for (let off = 0; off < bytes.length;) off += Deno.stdout.writeSync(bytes.subarray(off));
  };
  return {
    send,
    listen(onMessage) {
      void readLines(Deno.stdin.readable, (line) => {
        const message = decodeFrame(line);
        if (isParentMessage(message)) onMessage(message);
      }).then(() => Deno.exit(0)); // stdin closed: the parent is gone or done with us.
    },
    die(message) {
      send(message);
      Deno.exit(1);
    },
  };
}
