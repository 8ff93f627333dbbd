// The model request goldens (docs/reference/providers.md): for each case of tests/support/model_cases.ts
// Blade sends the model id, max_tokens, thinking, context_management, output_config (and temperature)
// Claude Code 2.1.332 sends for the same flags and variables (tests/fixtures/claude/models/bodies.json,
// re-recorded by scripts/record_claude_models.ts), and its anthropic-beta names are among Claude Code's;
// and a child's request carries the model fields Claude Code's child sends (children.json: the Agent
// call's `effort`, then the agent file's, then the run's).
// Run in this process (runCli with real files) against the loopback fake server.

import assert from "node:assert/strict";
import { runCli } from "../lib/cli/main.ts";
import { captureIo } from "../lib/cli/io.ts";
import { fakeEnv } from "../lib/testing/fakes.ts";
import { realPorts } from "../lib/sys/mod.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  CHILD_MODEL_CASES,
  CHILD_PROMPT,
  childAgentFile,
  delegateOnce,
  MODEL_CASES,
  MODEL_FIELDS,
} from "./support/model_cases.ts";

const GOLDEN = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/claude/models/bodies.json", import.meta.url)),
) as Record<string, Record<string, unknown> & { betas: string[] }>;

Deno.test("models: every case is recorded from Claude Code", () => {
  assert.deepEqual(Object.keys(GOLDEN), MODEL_CASES.map((c) => c.name));
});

for (const c of MODEL_CASES) {
  Deno.test(`models (${c.name}): ${[...c.flags, ...Object.entries(c.env ?? {}).map(([k, v]) => `${k}=${v}`)].join(" ")} sends what Claude Code sends`, async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-models-" }));
    try {
      await Deno.mkdir(`${root}/ws`);
      await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "Hi." }) });
      const vars = {
        HOME: `${root}/home`,
        BLADE_STORAGE_ROOT: `${root}/storage`,
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-ant-fake-key",
        ...c.env,
      };
      const io = captureIo();
      const ports = { ...realPorts(), env: fakeEnv(vars, { cwd: `${root}/ws`, home: `${root}/home` }) };
      const code = await runCli(["-p", "Say hi", "--output-format", "json", ...c.flags], ports, io);
      assert.equal(code, 0, io.stderr() + io.stdout());
      const request = server.requests[0]!;
      const body = request.body as unknown as Record<string, unknown>;
      const { betas, ...golden } = GOLDEN[c.name]!;
      const sent = Object.fromEntries(
        [...MODEL_FIELDS, "temperature"].filter((f) => f in body).map((f) => [f, body[f]]),
      );
      assert.deepEqual(sent, golden);
      const ours = (request.headers["anthropic-beta"] ?? "").split(",").filter((b) => b !== "");
      assert.deepEqual(
        ours.filter((b) => !betas.includes(b)),
        [],
        "anthropic-beta names Claude Code does not send",
      );
    } finally {
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  });
}

const CHILD_GOLDEN = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/claude/models/children.json", import.meta.url)),
) as Record<string, Record<string, unknown>>;

Deno.test("models: every child case is recorded from Claude Code", () => {
  assert.deepEqual(Object.keys(CHILD_GOLDEN), CHILD_MODEL_CASES.map((c) => c.name));
});

for (const c of CHILD_MODEL_CASES) {
  Deno.test(`models (child ${c.name}): ${c.flags.join(" ")}, Agent ${JSON.stringify(c.call)}, agent ${JSON.stringify(c.frontmatter ?? "")}: the child sends what Claude Code's sends`, async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-models-" }));
    try {
      await Deno.mkdir(`${root}/ws`);
      await Deno.mkdir(`${root}/home/.claude/agents`, { recursive: true });
      await Deno.writeTextFile(`${root}/home/.claude/agents/helper.md`, childAgentFile(c));
      const answer = delegateOnce(c);
      await using server = startFakeAnthropicServer({
        handler: (req) => fakeTurn(answer(req.body as unknown as Record<string, unknown>)),
      });
      const vars = {
        HOME: `${root}/home`,
        BLADE_STORAGE_ROOT: `${root}/storage`,
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-ant-fake-key",
      };
      const io = captureIo();
      const ports = { ...realPorts(), env: fakeEnv(vars, { cwd: `${root}/ws`, home: `${root}/home` }) };
      const args = [
        "-p",
        "Delegate",
        "--output-format",
        "json",
        "--dangerously-skip-permissions",
        ...c.flags,
      ];
      const code = await runCli(args, ports, io);
      assert.equal(code, 0, io.stderr() + io.stdout());
      const child = server.requests.find((r) =>
        JSON.stringify((r.body as unknown as { messages: unknown[] }).messages[0] ?? "").includes(
          CHILD_PROMPT,
        )
      );
      assert.ok(child !== undefined, "the child made a request");
      const body = child.body as unknown as Record<string, unknown>;
      const sent = Object.fromEntries(MODEL_FIELDS.filter((f) => f in body).map((f) => [f, body[f]]));
      assert.deepEqual(sent, CHILD_GOLDEN[c.name]);
    } finally {
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  });
}
