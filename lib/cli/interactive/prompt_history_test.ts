import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { realFs } from "../../sys/fs.ts";
import { HISTORY_LIMIT, PromptHistory } from "./prompt_history.ts";

describe("PromptHistory", () => {
  it("survives a restart, skips repeats, keeps the newest entries, and is 0600", async () => {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/projects/p/prompt-history.json`;
    const first = new PromptHistory(realFs(), path);
    assert.deepEqual(await first.load(), []);
    await first.add("explain main.ts");
    await first.add("explain main.ts");
    await first.add("  fix the test  ");
    const second = new PromptHistory(realFs(), path);
    assert.deepEqual(await second.load(), ["explain main.ts", "fix the test"]);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) await second.add(`p${i}`);
    assert.equal(second.entries.length, HISTORY_LIMIT);
    assert.equal(second.entries.at(-1), `p${HISTORY_LIMIT + 4}`);
    await Deno.remove(dir, { recursive: true });
  });

  it("never writes a configured secret: it is redacted before the file is written", async () => {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/h.json`;
    const redact = (text: string) => text.replaceAll("sk-ant-SECRET", "[REDACTED]");
    const history = new PromptHistory(realFs(), path, { redact });
    await history.add("use the key sk-ant-SECRET for this");
    assert.ok(!(await Deno.readTextFile(path)).includes("sk-ant-SECRET"));
    assert.deepEqual(await new PromptHistory(realFs(), path).load(), ["use the key [REDACTED] for this"]);
    await Deno.remove(dir, { recursive: true });
  });

  it("reads a damaged file as an empty history", async () => {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(`${dir}/h.json`, "{not json");
    assert.deepEqual(await new PromptHistory(realFs(), `${dir}/h.json`).load(), []);
    await Deno.remove(dir, { recursive: true });
  });
});
