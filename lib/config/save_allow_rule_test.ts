import assert from "node:assert/strict";
import { realPorts } from "../sys/mod.ts";
import { BladeError } from "../errors.ts";
import { saveAllowRule } from "./save_allow_rule.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "blade-save-rule-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("saveAllowRule: makes the file, adds the rule once, keeps every other key", async () => {
  await withDir(async (dir) => {
    const { fs } = realPorts();
    const path = `${dir}/.claude/settings.local.json`;
    assert.deepEqual(await saveAllowRule(fs, { path, rule: "Bash(npm test)" }), { added: true });
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), {
      permissions: { allow: ["Bash(npm test)"] },
    });
    await Deno.writeTextFile(
      path,
      JSON.stringify({ model: "opus", permissions: { deny: ["Bash(rm:*)"], allow: ["Read"] } }),
    );
    assert.deepEqual(await saveAllowRule(fs, { path, rule: "Edit(src/a.ts)" }), { added: true });
    assert.deepEqual(await saveAllowRule(fs, { path, rule: "Edit(src/a.ts)" }), { added: false });
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), {
      model: "opus",
      permissions: { deny: ["Bash(rm:*)"], allow: ["Read", "Edit(src/a.ts)"] },
    });
  });
});

Deno.test("saveAllowRule: a file that is not a settings object is never overwritten", async () => {
  await withDir(async (dir) => {
    const { fs } = realPorts();
    for (const text of ["{not json", "[1]", '{"permissions": []}', '{"permissions": {"allow": "Read"}}']) {
      const path = `${dir}/settings.json`;
      await Deno.writeTextFile(path, text);
      await assert.rejects(
        saveAllowRule(fs, { path, rule: "Read" }),
        (e) => e instanceof BladeError && e.code === "config_invalid",
      );
      assert.equal(await Deno.readTextFile(path), text);
    }
  });
});
