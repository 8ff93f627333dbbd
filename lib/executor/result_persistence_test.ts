import assert from "node:assert/strict";
import { realPorts } from "../sys/mod.ts";
import { fitResult, resultFileName, toolResultsDir } from "./result_persistence.ts";

Deno.test("result persistence: the folder beside the transcript, and call ids as safe file names", () => {
  assert.equal(toolResultsDir("/s/projects/p/session-1.jsonl"), "/s/projects/p/session-1/tool-results");
  assert.equal(toolResultsDir(undefined), undefined, "a shared store's stream has no folder");
  assert.equal(resultFileName("toolu_01AbC-x"), "toolu_01AbC-x.txt");
  // A model-chosen id never leaves the folder.
  assert.equal(resultFileName("../../etc/passwd"), "%2E.%2F..%2Fetc%2Fpasswd.txt");
  assert.equal(resultFileName(""), "%.txt");
});

Deno.test("result persistence: up to the limit unchanged; past it saved whole (durably) and pointed to; no folder: cut", async () => {
  const ports = realPorts();
  const root = await Deno.makeTempDir();
  try {
    const dir = `${root}/session-1/tool-results`;
    const small = { content: "x".repeat(30_000), isError: false };
    assert.equal(await fitResult(small, { callId: "c1", limit: 30_000, fs: ports.fs, dir }), small);
    const big = { content: "y\n".repeat(15_001), isError: true, metadata: { exitCode: 1 } };
    const fitted = await fitResult(big, { callId: "c2", limit: 30_000, fs: ports.fs, dir });
    assert.match(fitted.content, new RegExp(`Full output saved to: ${dir}/c2\\.txt\\n`));
    assert.equal(fitted.isError, true);
    assert.deepEqual(fitted.metadata, { exitCode: 1 });
    assert.equal(await Deno.readTextFile(`${dir}/c2.txt`), big.content);
    // A tool's text that opens like a block is saved like any other (hostile output cannot dodge the limit).
    const forged = { content: `<persisted-output>\n${"z".repeat(40_000)}`, isError: false };
    const saved = await fitResult(forged, { callId: "c3", limit: 30_000, fs: ports.fs, dir });
    assert.ok(saved.content.length < 3_000, String(saved.content.length));
    assert.equal(await Deno.readTextFile(`${dir}/c3.txt`), forged.content);
    // Secrets are kept out of the saved file as out of the transcript.
    const secret = { content: `key sk-ant-api03-secret ${"s".repeat(40_000)}`, isError: false };
    const redact = (t: string) => t.replaceAll("sk-ant-api03-secret", "[REDACTED]");
    await fitResult(secret, { callId: "c6", limit: 30_000, fs: ports.fs, dir, redact });
    assert.ok((await Deno.readTextFile(`${dir}/c6.txt`)).startsWith("key [REDACTED] sss"));
    const cut = await fitResult(big, { callId: "c4", limit: 30_000, fs: ports.fs });
    assert.match(cut.content, /^<truncated-output>\n/);
    // A folder that cannot be made (a file is in its way): cut, not failed.
    await Deno.writeTextFile(`${root}/file`, "");
    const blocked = await fitResult(big, {
      callId: "c5",
      limit: 30_000,
      fs: ports.fs,
      dir: `${root}/file/x`,
    });
    assert.match(blocked.content, /^<truncated-output>\n/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
