// Owns the process mechanism of the sandbox, kept for benchmarks and the mechanism tests only (Blade
// runs children in Workers, lib/child/worker_transport.ts): `Deno.execPath() run <scoped --allow-*
// flags> <module>` speaking JSON-line frames over stdin/stdout, on both ends (`PROCESS` for the
// parent, `stdioPort()` for the child). Only works where Deno.execPath() is the deno CLI, not inside
// a `deno compile`d binary. Does not validate messages or track requests: lib/child/sandbox.ts does.

import { fileURLToPath } from "node:url";
import { BladeError, describeError } from "../lib/errors.ts";
import { toDenoFlags } from "../lib/permissions/deno_permissions.ts";
import {
  type ChildMessage,
  isParentMessage,
  type ParentMessage,
  type SandboxMechanism,
  type SandboxPort,
  type SandboxTransport,
  type TransportOptions,
  type TransportSink,
} from "../lib/child/sandbox_protocol.ts";

/** A child as a `deno run` process with the permission set as scoped flags. */
export const PROCESS: SandboxMechanism = { name: "process", open: openProcessTransport };

const TAIL_BYTES = 4096;

/** Marks protocol lines on a child's stdout; any other line there is stray output, kept for diagnostics. */
const FRAME_PREFIX = "\u001eblade-sandbox ";

function encodeFrame(message: ParentMessage | ChildMessage): string {
  return `${FRAME_PREFIX}${JSON.stringify(message)}\n`;
}

/** The message in one line, or undefined when the line is not a well-formed frame. */
function decodeFrame(line: string): unknown {
  if (!line.startsWith(FRAME_PREFIX)) return undefined;
  try {
    return JSON.parse(line.slice(FRAME_PREFIX.length));
  } catch {
    return undefined;
  }
}

/** Calls onLine for each newline-terminated line of a byte stream (and a last unterminated one). */
async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  }
  if (buffered !== "") onLine(buffered);
}

/** The child's end over stdin/stdout: pass it to serveSandbox when not running in a Worker. */
export function stdioPort(): SandboxPort {
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
    die(message, code) {
      send(message);
      Deno.exit(code);
    },
  };
}

function openProcessTransport(module: URL, options: TransportOptions, sink: TransportSink): SandboxTransport {
  if (module.protocol !== "file:") {
    throw new BladeError(
      "sandbox_start_failed",
      `Cannot run "${module.href}" as a process: not a local file`,
    );
  }
  const args = [
    "run",
    ...toDenoFlags(options.permissions),
    fileURLToPath(module),
  ];
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(Deno.execPath(), {
      args,
      env: { NO_COLOR: "1" },
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
