// Owns the child side of a sandbox: `serveSandbox(handler)` answers the parent's requests, streams
// events, and turns uncaught errors into a last `fatal` message so the parent never waits forever.
// A child that means to end says so with `ctx.exit(code)`, which sends an explicit `exit` message
// before the Worker closes (nothing global is patched). Like lib/sys, this file touches the Worker
// scope because it *is* the thread boundary. Does not know what the child does: the handler decides.

import { type ChildMessage, isParentMessage, type SandboxPort, toWireError } from "./sandbox_protocol.ts";

export interface SandboxChildContext<E> {
  /** Sends one event to the parent; events keep their order relative to responses. */
  emit(event: E): void;
  /** Aborted when the parent cancels with a grace period: stop, kill what you started, answer. */
  signal: AbortSignal;
  /** Tells the parent this child ends with `code` (pending requests fail with it), then ends. */
  exit(code: number): void;
}

export type SandboxHandler<Req, Res, Ev> = (request: Req, ctx: SandboxChildContext<Ev>) => Res | Promise<Res>;

/** Serves requests until the parent ends the child. Call once, from the child's entry module. */
export function serveSandbox<Req = unknown, Res = unknown, Ev = unknown>(
  handler: SandboxHandler<Req, Res, Ev>,
  port: SandboxPort = workerPort(),
  options: { onNotice?: (value: unknown) => void } = {},
): void {
  const abort = new AbortController();
  const ctx: SandboxChildContext<Ev> = {
    emit: (value) => port.send({ t: "event", value }),
    signal: abort.signal,
    exit: (code) => port.die({ t: "exit", code }, code),
  };
  const fatal = (error: unknown) => port.die({ t: "fatal", error: toWireError(error) }, 1);
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
    if (message.t === "notice") return options.onNotice?.(message.value);
    const { id, value } = message;
    try {
      // The request is whatever the parent sent: the handler's Req type is the parent's promise.
      const result = await handler(value as Req, ctx);
      port.send({ t: "response", id, ok: true, value: result });
    } catch (error) {
      port.send({ t: "response", id, ok: false, error: toWireError(error) });
    }
  });
  port.send({ t: "ready" });
}

interface WorkerScope {
  postMessage(message: unknown): void;
  close(): void;
}

function workerPort(): SandboxPort {
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
      scope.close();
    },
  };
}
