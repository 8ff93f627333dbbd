// A small program for tests: starts one sandbox child and prints how that went as one JSON line
// (`{ok: true}` or `{code, message}`). Tests run it as a subprocess when the child is expected to fail
// loudly: a Worker whose module throws while loading makes Deno print "Uncaught …" on the process's
// stderr even though Blade handles the failure, and a subprocess lets the test capture that line
// instead of leaving it in CI logs.
// Usage: deno run -A --unstable-worker-options lib/testing/sandbox_start.ts worker <module URL> <permissions JSON>

import { BladeError } from "../errors.ts";
import type { DenoPermissionSet } from "../permissions/deno_permissions.ts";
import { startSandbox } from "../child/sandbox.ts";
import { WORKER } from "../child/worker_transport.ts";

if (import.meta.main) {
  const [, module, permissions] = Deno.args;
  const outcome = await startSandbox(new URL(module!), {
    mechanism: WORKER,
    permissions: JSON.parse(permissions!) as DenoPermissionSet,
  }).then(
    async (sandbox) => {
      await sandbox.cancel("done");
      return { ok: true };
    },
    (e: unknown) => e instanceof BladeError ? { code: e.code, message: e.message } : { message: String(e) },
  );
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(outcome) + "\n"));
}
