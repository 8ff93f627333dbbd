// The pure part of lib/remote/nats_link.ts: which errors leave a write's outcome unknown. (The NATS
// packages reach it through importNpm, lib/npm_module.ts, which finds a CommonJS package's exports on a
// bundle's `default` too: without that `--store` failed in the bundles with "connect is not a function".)

import assert from "node:assert/strict";
import { isTransient } from "./nats_link.ts";

Deno.test("isTransient: timeouts and no responders leave the outcome unknown; a CAS loss does not", () => {
  const named = (name: string, message: string) => Object.assign(new Error(message), { name });
  assert.equal(isTransient(named("TimeoutError", "timeout")), true);
  assert.equal(isTransient(new Error("503 no responders available")), true);
  assert.equal(isTransient(new Error("wrong last sequence: 4")), false);
  assert.equal(isTransient("timeout"), false);
});
