// Owns running one module under a Deno permission set with a message channel: request/response, an
// ordered event stream, crash propagation and prompt cancellation, over a mechanism (a Worker with
// `deno.permissions`, worker_transport.ts). The
// executor runs child sessions inside it. Does not decide the permission set
// (permissions/deno_permissions.ts) nor what the child does.

import { BladeError, type BladeErrorCode, isBladeErrorCode } from "../errors.ts";
import { watchdog } from "../sys/clock.ts";
import type { DenoPermissionSet } from "../permissions/deno_permissions.ts";
import {
  type ChildMessage,
  isChildMessage,
  type SandboxMechanism,
  type SandboxTransport,
  type TransportSink,
  type WireError,
} from "./sandbox_protocol.ts";
import { WORKER } from "./worker_transport.ts";

export interface SandboxOptions<Ev> {
  /** Default: a Worker. */
  mechanism?: SandboxMechanism;
  permissions: DenoPermissionSet;
  /** Shown in errors and as the Worker's name; default: the module's file name. */
  name?: string;
  /** Receives the child's events in the order it emitted them. */
  onEvent?: (event: Ev) => void;
  /** Aborting cancels the child (as `cancel()`). */
  signal?: AbortSignal;
  /** How long the child may take to send `ready`; default 30 s. */
  startTimeoutMs?: number;
}

export type SandboxExit =
  | { state: "exited"; code: number }
  | { state: "crashed"; message: string }
  | { state: "cancelled"; reason: string };

export interface Sandbox<Req = unknown, Res = unknown> extends AsyncDisposable {
  readonly name: string;
  readonly mechanism: SandboxMechanism;
  /** The Deno permission set the child runs with, for diagnostics. */
  readonly permissions: DenoPermissionSet;
  /** Resolves once the child is gone; never rejects. */
  readonly exited: Promise<SandboxExit>;
  /** Rejects with a BladeError when the child fails, crashes, exits or is cancelled before answering. */
  request(value: Req): Promise<Res>;
  /**
   * Sends one message that expects no answer (the child's `onNotice`), moving `transfer`'s buffers.
   * False when the child is not ready or the message could not be sent.
   */
  notify(value: unknown, transfer?: Transferable[]): boolean;
  /**
   * Ends the child; requests still pending then reject with code `sandbox_cancelled`. With `graceMs`,
   * in-flight work is first aborted (the handlers' `ctx.signal`) and given that long to answer, so
   * tools can kill the processes they started; without it the child ends at once.
   */
  cancel(reason?: string, options?: CancelOptions): Promise<SandboxExit>;
}

export interface CancelOptions {
  graceMs?: number;
}

const DEFAULT_START_TIMEOUT_MS = 30_000;

/** Starts the module and resolves once it has sent `ready` (rejects with a BladeError otherwise). */
export async function startSandbox<Req = unknown, Res = unknown, Ev = unknown>(
  module: URL,
  options: SandboxOptions<Ev>,
): Promise<Sandbox<Req, Res>> {
  const sandbox = new SandboxChannel<Req, Res, Ev>(module, options);
  await sandbox.started;
  return sandbox;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: BladeError): void;
}

class SandboxChannel<Req, Res, Ev> implements Sandbox<Req, Res> {
  readonly name: string;
  readonly mechanism: SandboxMechanism;
  readonly permissions: DenoPermissionSet;
  readonly started: Promise<void>;
  readonly exited: Promise<SandboxExit>;
  #transport: SandboxTransport | undefined;
  #onEvent: ((event: Ev) => void) | undefined;
  #signal: AbortSignal | undefined;
  #state: "starting" | "ready" | "ended" = "starting";
  #endError: BladeError | undefined;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #ready = Promise.withResolvers<void>();
  #exit = Promise.withResolvers<SandboxExit>();
  #cancelTimer: (() => void) | undefined;
  #drained: PromiseWithResolvers<void> | undefined;
  #onAbort = () => void this.cancel("aborted");

  constructor(module: URL, options: SandboxOptions<Ev>) {
    this.name = options.name ?? module.pathname.split("/").pop() ?? module.href;
    this.mechanism = options.mechanism ?? WORKER;
    this.permissions = options.permissions;
    this.#onEvent = options.onEvent;
    this.#signal = options.signal;
    this.started = this.#ready.promise;
    this.exited = this.#exit.promise;
    const sink: TransportSink = {
      message: (value) => this.#receive(value),
      failed: (reason) => this.#crash(reason),
      ended: (code, detail) => this.#ended(code, detail),
    };
    const base = { name: this.name, permissions: options.permissions };
    this.#transport = this.mechanism.open(module, base, sink);
    const timeout = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    // A watchdog over the starting Worker (which keeps the process alive while it starts).
    this.#cancelTimer = watchdog(timeout, () => this.#crash(`it did not start within ${timeout} ms`));
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (this.#signal?.aborted) this.#onAbort();
  }

  request(value: Req): Promise<Res> {
    if (this.#state !== "ready") {
      return Promise.reject(this.#endError ?? this.#error("sandbox_not_ready", "is not ready"));
    }
    const id = this.#nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    this.#pending.set(id, { resolve, reject });
    try {
      this.#transport?.send({ t: "request", id, value });
    } catch (error) {
      this.#pending.delete(id);
      reject(this.#error("sandbox_request_failed", `could not be sent a request: ${String(error)}`));
    }
    return promise as Promise<Res>;
  }

  notify(value: unknown, transfer?: Transferable[]): boolean {
    if (this.#state !== "ready") return false;
    try {
      this.#transport?.send({ t: "notice", value }, transfer);
      return true;
    } catch {
      return false;
    }
  }

  async cancel(reason = "cancelled", options: CancelOptions = {}): Promise<SandboxExit> {
    const grace = options.graceMs ?? 0;
    if (grace > 0 && this.#state === "ready" && this.#pending.size > 0) {
      this.#drained ??= Promise.withResolvers<void>();
      this.#transport?.send({ t: "abort", reason });
      // The Worker keeps the process alive meanwhile; the watchdog only ends the wait.
      let stop = () => {};
      const expired = new Promise<void>((resolve) => (stop = watchdog(grace, resolve)));
      await Promise.race([this.#drained.promise, expired, this.exited]);
      stop();
    }
    this.#end({ state: "cancelled", reason }, this.#error("sandbox_cancelled", `was cancelled (${reason})`));
    return await this.exited;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.cancel("disposed");
  }

  #receive(value: unknown): void {
    if (this.#state === "ended") return;
    if (!isChildMessage(value)) return this.#crash("it sent a message outside the sandbox protocol");
    this.#handle(value);
  }

  #handle(message: ChildMessage): void {
    switch (message.t) {
      case "ready":
        this.#state = "ready";
        this.#cancelTimer?.();
        this.#ready.resolve();
        return;
      case "response": {
        const pending = this.#pending.get(message.id);
        if (pending === undefined) return;
        this.#pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(remoteError(message.error));
        if (this.#pending.size === 0) this.#drained?.resolve();
        return;
      }
      case "event":
        this.#onEvent?.(message.value as Ev);
        return;
      case "fatal":
        return this.#crash(`uncaught ${message.error.name}: ${message.error.message}`);
      case "exit":
        return this.#ended(message.code);
    }
  }

  #ended(code: number, detail?: string): void {
    if (code === 0 && this.#state === "ready" && this.#pending.size === 0) {
      return this.#end({ state: "exited", code }, this.#error("sandbox_exited", "has exited"));
    }
    const why = code === 0 ? "it exited before answering" : `it exited with code ${code}`;
    this.#crash(detail === undefined ? why : `${why}: ${lastLines(detail)}`);
  }

  #crash(reason: string): void {
    const starting = this.#state === "starting";
    const error = starting
      ? this.#error("sandbox_start_failed", `failed to start: ${reason}`)
      : this.#error("sandbox_crashed", `crashed: ${reason}`);
    this.#end({ state: "crashed", message: error.message }, error);
  }

  #end(exit: SandboxExit, error: BladeError): void {
    if (this.#state === "ended") return;
    this.#state = "ended";
    this.#endError = error;
    this.#cancelTimer?.();
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#ready.reject(error);
    this.#ready.promise.catch(() => {}); // observed by startSandbox, or irrelevant once started
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    const transport = this.#transport;
    void (transport === undefined ? Promise.resolve() : transport.kill()).then(() =>
      this.#exit.resolve(exit)
    );
  }

  #error(code: BladeErrorCode, what: string): BladeError {
    return new BladeError(code, `Sandboxed child "${this.name}" ${what}`);
  }
}

function remoteError(error: WireError): BladeError {
  const message = error.name === "BladeError" || error.name === "Error"
    ? error.message
    : `${error.name}: ${error.message}`;
  // The child is not trusted to name codes: an unknown one becomes the generic code, kept in the text.
  const code = error.code;
  const known = isBladeErrorCode(code);
  return new BladeError(
    known ? code : "sandbox_request_failed",
    known || code === undefined ? message : `${message} (unknown error code "${code}")`,
    error.hint === undefined ? {} : { hint: error.hint },
  );
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-5).join("\n");
}
