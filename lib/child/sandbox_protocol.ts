// Owns the envelope of the messages between a sandbox parent and its child — requests and their
// responses, notices, an ordered event stream, the start and the end — generic over what they carry,
// plus the error shape and the mechanism contract (how a parent opens a transport to a child, how a
// child answers through a port). The child boundary's own protocol fills the envelope with its
// payloads (child_protocol.ts: HostToWorker, WorkerToHost).
// No I/O of its own. Payloads travel by structured clone (a Worker's postMessage).

import type { DenoPermissionSet } from "../permissions/deno_permissions.ts";

/** Parent → child: one request to answer. */
export interface RequestMessage<Req = unknown> {
  t: "request";
  id: number;
  value: Req;
}

/** Parent → child: stop in-flight work now (the child's handlers see their signal abort). */
export interface AbortMessage {
  t: "abort";
  reason: string;
}

/** Parent → child: one message that expects no answer (e.g. a proxied response's next chunk). */
export interface NoticeMessage<Notice = unknown> {
  t: "notice";
  value: Notice;
}

export type ParentMessage<Req = unknown, Notice = unknown> =
  | RequestMessage<Req>
  | AbortMessage
  | NoticeMessage<Notice>;

export interface WireError {
  name: string;
  message: string;
  /** A BladeError's code and hint, so the parent can rebuild it. */
  code?: string;
  hint?: string;
  stack?: string;
}

/** Child → parent. `ready` is always the first message; `fatal` and `exit` are the last. */
export type ChildMessage<Res = unknown, Ev = unknown> =
  | { t: "ready" }
  | { t: "response"; id: number; ok: true; value: Res }
  | { t: "response"; id: number; ok: false; error: WireError }
  | { t: "event"; value: Ev }
  | { t: "fatal"; error: WireError }
  | { t: "exit"; code: number };

export function isParentMessage(value: unknown): value is ParentMessage {
  if (!isRecord(value)) return false;
  if (value.t === "request") return typeof value.id === "number";
  if (value.t === "notice") return "value" in value;
  return value.t === "abort" && typeof value.reason === "string";
}

export function isChildMessage(value: unknown): value is ChildMessage {
  if (!isRecord(value)) return false;
  switch (value.t) {
    case "ready":
      return true;
    case "response":
      return typeof value.id === "number" && (value.ok === true || isWireError(value.error));
    case "event":
      return "value" in value;
    case "fatal":
      return isWireError(value.error);
    case "exit":
      return typeof value.code === "number";
    default:
      return false;
  }
}

export function toWireError(value: unknown): WireError {
  if (!(value instanceof Error)) return { name: "Error", message: String(value) };
  const wire: WireError = { name: value.name, message: value.message };
  const extra = value as Error & { code?: unknown; hint?: unknown };
  if (typeof extra.code === "string") wire.code = extra.code;
  if (typeof extra.hint === "string") wire.hint = extra.hint;
  if (value.stack !== undefined) wire.stack = value.stack;
  return wire;
}

function isWireError(value: unknown): value is WireError {
  return isRecord(value) && typeof value.name === "string" && typeof value.message === "string";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** What a mechanism reports to the parent's channel. */
export interface TransportSink {
  /** A message from the child, not yet validated. */
  message(value: unknown): void;
  /** The child failed outside the protocol (module load error, uncaught error seen by the host). */
  failed(reason: string): void;
  /** The child is gone; `detail` is its last stderr lines when known. */
  ended(code: number, detail?: string): void;
}

/** The parent's end of one mechanism (a Worker). */
export interface SandboxTransport {
  /** `transfer`: buffers moved to the child instead of copied. */
  send(message: ParentMessage, transfer?: Transferable[]): void;
  /** Ends the child at once; resolves when it is gone and its resources are released. */
  kill(): Promise<void>;
}

export interface TransportOptions {
  name: string;
  permissions: DenoPermissionSet;
}

/** How a parent starts a child under a permission set: a Worker (lib/child/worker_transport.ts). */
export interface SandboxMechanism {
  readonly name: string;
  open(module: URL, options: TransportOptions, sink: TransportSink): SandboxTransport;
}

/** The child's end of a mechanism. */
export interface SandboxPort {
  send(message: ChildMessage): void;
  listen(onMessage: (message: ParentMessage) => void): void;
  /** Sends a last message (`fatal` or `exit`), then ends the child. */
  die(message: ChildMessage, code: number): void;
}
