import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { idOfKey, keyOfId } from "./nats_keys.ts";
import { parseStoreUrl } from "./store_url.ts";

Deno.test("parseStoreUrl: nats:// and tls:// with one or several servers", () => {
  const cases: [string, string[], boolean][] = [
    ["nats://127.0.0.1:4222", ["127.0.0.1:4222"], false],
    ["nats://a.example:4222,b.example:4223", ["a.example:4222", "b.example:4223"], false],
    ["nats://a:1,nats://b:2", ["a:1", "b:2"], false],
    ["tls://nats.internal:4222/", ["nats.internal:4222"], true],
    ["nats://[::1]:4222", ["[::1]:4222"], false],
  ];
  for (const [value, servers, tls] of cases) {
    assert.deepEqual(parseStoreUrl(value), { kind: "nats", servers, tls }, value);
  }
});

Deno.test("parseStoreUrl: refuses what is not a NATS URL, and credentials in the URL (exit 2)", () => {
  const refused: [string, string][] = [
    ["file:///tmp/x", "the scheme must be nats:// or tls://"],
    ["127.0.0.1:4222", "the scheme must be nats:// or tls://"],
    ["nats://user:pw@127.0.0.1:4222", "credentials do not belong in the URL; use --store-creds"],
    ["nats://127.0.0.1", '"127.0.0.1" is not host:port'],
    ["nats://127.0.0.1:99999", "port 99999 is out of range"],
    ["nats://a:1,tls://b:2", '"tls://b:2" is not host:port'],
    ["nats://", '"" is not host:port'],
  ];
  for (const [value, why] of refused) {
    assert.throws(() => parseStoreUrl(value), (e: unknown) => {
      assert.ok(e instanceof BladeError);
      assert.equal(e.code, "store_url_invalid");
      assert.equal(e.exitCode, 2);
      assert.equal(e.message, `Invalid --store ${JSON.stringify(value)}: ${why}`);
      return true;
    });
  }
});

Deno.test("NATS keys: '.' maps to '=' one to one; foreign keys are no id", () => {
  assert.equal(keyOfId("agent-1.2"), "agent-1=2");
  assert.equal(idOfKey("agent-1=2"), "agent-1.2");
  assert.equal(keyOfId("a..b"), "a==b");
  assert.equal(idOfKey("a==b"), "a..b");
  assert.equal(idOfKey("a/b"), null);
  assert.equal(idOfKey("=="), null, "'..' is no session id");
});
