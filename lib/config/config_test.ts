import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { realFs } from "../sys/fs.ts";
import { fakeEnv } from "../testing/fakes.ts";
import { readSettingsFile, resolveConfig, resolveModel } from "./config.ts";

const NO_LAYERS = { user: {}, project: {} };
const env = (vars: Record<string, string> = {}) => fakeEnv(vars, { cwd: "/work" });
const isCode = (code: string, text?: RegExp) => (e: unknown) =>
  e instanceof BladeError && e.code === code && (text === undefined || text.test(e.message));

Deno.test("defaults: sonnet on Anthropic, mode default, depth 3, 20 children, Worker sandbox", () => {
  const c = resolveConfig(NO_LAYERS, { env: env(), flags: {} });
  assert.equal(c.provider, "anthropic");
  assert.equal(c.model, "claude-sonnet-5-5");
  assert.equal(c.permissionMode, "default");
  assert.equal(c.maxSubagentDepth, 3);
  assert.equal(c.maxConcurrentSubagents, 20);
  assert.equal(c.childSandbox, "worker");
  assert.equal(c.subagentStallTimeoutMs, 600_000);
  assert.equal(c.anthropic.baseUrl, "https://api.anthropic.com");
});

Deno.test("precedence: flags over environment over project settings over user settings", () => {
  const layers = {
    user: { model: "opus", permissionMode: "plan", maxSubagentDepth: 1, models: { fast: "user-fast" } },
    project: { model: "haiku", models: { fast: "project-fast" } },
  };
  const fromFiles = resolveConfig(layers, { env: env(), flags: {} });
  assert.equal(fromFiles.model, "claude-haiku-5-5", "project beats user");
  assert.equal(fromFiles.permissionMode, "plan", "user settings apply where the project is silent");
  assert.equal(fromFiles.maxSubagentDepth, 1);
  assert.equal(resolveModel("fast", fromFiles.aliases), "project-fast");
  const fromEnv = resolveConfig(layers, {
    env: env({ BLADE_MODEL: "fast", BLADE_MAX_SUBAGENT_DEPTH: "5" }),
    flags: {},
  });
  assert.equal(fromEnv.model, "project-fast");
  assert.equal(fromEnv.maxSubagentDepth, 5);
  const fromFlags = resolveConfig(layers, {
    env: env({ BLADE_MODEL: "fast" }),
    flags: { model: "claude-x", permissionMode: "acceptEdits" },
  });
  assert.equal(fromFlags.model, "claude-x", "an id that is no alias is used as given");
  assert.equal(fromFlags.permissionMode, "autoEdit", "Claude Code names map to Blade's modes");
});

Deno.test("the provider follows the flag, then a script, then which keys are set", () => {
  const pick = (vars: Record<string, string>, flags = {}) =>
    resolveConfig(NO_LAYERS, { env: env(vars), flags }).provider;
  assert.equal(pick({}, { provider: "openai" }), "openai");
  assert.equal(pick({ BLADE_SCRIPT: "s.yaml" }), "scripted");
  assert.equal(pick({ OPENAI_API_KEY: "k" }), "openai");
  assert.equal(pick({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "a" }), "anthropic");
  assert.equal(
    pick({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "" }),
    "openai",
    "an empty key counts as unset",
  );
  const scripted = resolveConfig(NO_LAYERS, { env: env(), flags: { script: "s.yaml" } });
  assert.equal(scripted.model, "scripted");
});

Deno.test("bad values are clear errors: unknown mode or provider (usage), bad numbers and sandbox names", () => {
  assert.throws(
    () => resolveConfig(NO_LAYERS, { env: env(), flags: { permissionMode: "sudo" } }),
    isCode("usage", /sudo/),
  );
  assert.throws(
    () => resolveConfig(NO_LAYERS, { env: env(), flags: { provider: "gemini" } }),
    isCode("usage", /gemini/),
  );
  assert.throws(
    () => resolveConfig(NO_LAYERS, { env: env({ BLADE_MAX_CONCURRENT_SUBAGENTS: "many" }), flags: {} }),
    isCode("config_invalid", /BLADE_MAX_CONCURRENT_SUBAGENTS must be a whole number/),
  );
  assert.throws(
    () => resolveConfig(NO_LAYERS, { env: env({ BLADE_CHILD_SANDBOX: "process" }), flags: {} }),
    isCode("config_invalid", /BLADE_CHILD_SANDBOX/),
  );
});

Deno.test("readSettingsFile: missing is empty; bad JSON or an unknown field names the file and the field", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-config-" });
  try {
    const fs = realFs();
    assert.deepEqual(await readSettingsFile(fs, `${dir}/none.json`), {});
    await Deno.writeTextFile(`${dir}/ok.json`, JSON.stringify({ model: "opus", maxTurns: 5 }));
    assert.deepEqual(await readSettingsFile(fs, `${dir}/ok.json`), { model: "opus", maxTurns: 5 });
    await Deno.writeTextFile(`${dir}/bad.json`, "{ model: opus");
    await assert.rejects(
      readSettingsFile(fs, `${dir}/bad.json`),
      isCode("config_invalid", /bad\.json is not valid JSON/),
    );
    await Deno.writeTextFile(`${dir}/extra.json`, JSON.stringify({ modle: "opus" }));
    await assert.rejects(
      readSettingsFile(fs, `${dir}/extra.json`),
      isCode("config_invalid", /extra\.json: the file/),
    );
    await Deno.writeTextFile(`${dir}/range.json`, JSON.stringify({ maxTurns: 0 }));
    await assert.rejects(
      readSettingsFile(fs, `${dir}/range.json`),
      isCode("config_invalid", /field "maxTurns"/),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
