// The pure parts of lib/remote/nats_link.ts: a CommonJS package's exports are found whether Deno named
// them on the module namespace (sources) or a bundle left them on `default` only (the dev bundle and
// `deno task bundle` do, which made `--store` fail there with "connect is not a function"); and which
// errors leave a write's outcome unknown.

import assert from "node:assert/strict";
import { commonJs, isTransient } from "./nats_link.ts";

Deno.test("commonJs: named exports as Deno gives them, or the bundle's default export", () => {
  const connect = () => {};
  const sources = { connect, default: { connect } };
  assert.equal(commonJs(sources), sources);
  const bundled = { default: { connect, Kvm: class {} } };
  assert.equal(commonJs(bundled), bundled.default);
  // An ES module with a default export of a function stays as it is.
  const esm = { default: () => 1 };
  assert.equal(commonJs(esm), esm);
  assert.equal((commonJs({ __esModule: true, default: { Objm: 1 } }) as { Objm?: number }).Objm, 1);
});

Deno.test("isTransient: timeouts and no responders leave the outcome unknown; a CAS loss does not", () => {
  const named = (name: string, message: string) => Object.assign(new Error(message), { name });
  assert.equal(isTransient(named("TimeoutError", "timeout")), true);
  assert.equal(isTransient(new Error("503 no responders available")), true);
  assert.equal(isTransient(new Error("wrong last sequence: 4")), false);
  assert.equal(isTransient("timeout"), false);
});
