// Owns the process mechanism of the sandbox: `Deno.execPath() run <scoped --allow-* flags> <module>`
// speaking JSON-line frames over stdin/stdout. Like lib/sys, it touches Deno.Command because it *is*
// the process boundary. Does not validate messages or track requests: sandbox.ts does.
// Only works where Deno.execPath() is the deno CLI, not inside a `deno compile`d binary.

import { fileURLToPath } from "node:url";
import { BladeError, describeError } from "../errors.ts";
import { type DenoPermissionSet, toDenoFlags } from "./deno_permissions.ts";
import {
  decodeFrame,
  encodeFrame,
  readLines,
  type SandboxTransport,
  type TransportSink,
} from "./sandbox_protocol.ts";

export interface ProcessTransportOptions {
  name: string;
  permissions: DenoPermissionSet;
  /** Working folder of the child (default: the parent's). */
  cwd?: string;
  /** Added to the inherited environment; reads stay limited by the env grant. */
  env?: Record<string, string>;
  /** deno.json for the child (default: Deno's discovery from the module's folder). */
  configPath?: string;
}

const TAIL_BYTES = 4096;

export function openProcessTransport(
  module: URL,
  options: ProcessTransportOptions,
  sink: TransportSink,
): SandboxTransport {
  if (module.protocol !== "file:") {
    throw new BladeError(
      "sandbox_start_failed",
      `Cannot run "${module.href}" as a process: not a local file`,
    );
  }
  const args = [
    "run",
    ...toDenoFlags(options.permissions),
    ...(options.configPath === undefined ? [] : ["--config", options.configPath]),
    fileURLToPath(module),
  ];
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(Deno.execPath(), {
      args,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      env: { NO_COLOR: "1", ...options.env },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    throw new BladeError(
      "sandbox_start_failed",
      `Cannot start child "${options.name}": ${describeError(error)}`,
      {
        cause: error,
      },
    );
  }
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const stray: string[] = [];
  const stdoutDone = readLines(child.stdout, (line) => {
    const message = decodeFrame(line);
    if (message === undefined) keepTail(stray, line);
    else sink.message(message);
  });
  const stderrDone = readTail(child.stderr);
  const gone = Promise.all([child.status, stdoutDone, stderrDone]).then(async ([status, , stderr]) => {
    await writer.close().catch(() => {});
    const detail = [stderr.trim(), ...stray].filter((s) => s !== "").join("\n");
    sink.ended(status.code, detail === "" ? undefined : detail);
  });
  return {
    pid: child.pid,
    args,
    send(message) {
      writer.write(encoder.encode(encodeFrame(message))).catch(() => {}); // a dead child ends via `gone`
    },
    async kill() {
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
      await gone;
    },
  };
}

/** The last TAIL_BYTES of a stream, as text. */
async function readTail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    text = (text + chunk).slice(-TAIL_BYTES);
  }
  return text;
}

function keepTail(lines: string[], line: string): void {
  lines.push(line);
  if (lines.length > 20) lines.shift();
}
