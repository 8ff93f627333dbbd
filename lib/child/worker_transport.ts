// Owns the Worker mechanism of the sandbox: one module in its own isolate and thread, with a Deno
// permission set given as Worker `deno.permissions` (needs the `worker-options` unstable feature).
// Does not validate messages or track requests: sandbox.ts does.

import { BladeError, describeError } from "../errors.ts";
import { isNotCapable } from "../sys/errors.ts";
import { toWorkerPermissions } from "../permissions/deno_permissions.ts";
import type {
  SandboxMechanism,
  SandboxTransport,
  TransportOptions,
  TransportSink,
} from "./sandbox_protocol.ts";

/** The mechanism Blade runs children with. */
export const WORKER: SandboxMechanism = { name: "worker", open: openWorkerTransport };

function openWorkerTransport(module: URL, options: TransportOptions, sink: TransportSink): SandboxTransport {
  let worker: Worker;
  try {
    worker = new Worker(module, {
      type: "module",
      name: options.name,
      deno: { permissions: toWorkerPermissions(options.permissions) },
    });
  } catch (error) {
    if (isNotCapable(error)) {
      throw new BladeError(
        "sandbox_permissions",
        `Cannot start child "${options.name}": its permissions exceed Blade's own (${describeError(error)})`,
        {
          hint: "Start Blade with the matching --allow-* flag (see docs/guides/permissions.md)",
          cause: error,
        },
      );
    }
    throw error;
  }
  worker.onmessage = (e) => sink.message(e.data);
  worker.onerror = (e) => {
    e.preventDefault(); // the parent survives; the failure reaches callers as a crash instead
    sink.failed(e.message);
  };
  worker.onmessageerror = () => sink.failed("it sent a message that could not be deserialized");
  return {
    send: (message, transfer) => worker.postMessage(message, transfer ?? []),
    kill() {
      // Stops a worker that awaits I/O at once. Deno 2.9 cannot stop a synchronous endless loop this
      // way (the thread keeps spinning until the process exits); Blade's own code never loops so.
      worker.terminate();
      return Promise.resolve();
    },
  };
}
