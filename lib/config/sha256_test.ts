import assert from "node:assert/strict";
import { sha256Hex } from "./sha256.ts";

async function webCrypto(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("sha256Hex equals WebCrypto's digest for every length around the block edges and any text", async () => {
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const texts = [
    ...Array.from({ length: 200 }, (_, n) => "x".repeat(n)),
    "/x/a/b",
    "/x/a-b",
    "C:\\Users\\dev\\project",
    "/home/dév/😀/project",
    "a".repeat(10_000),
  ];
  for (const text of texts) {
    assert.equal(sha256Hex(text), await webCrypto(text), JSON.stringify(text.slice(0, 40)));
  }
});
