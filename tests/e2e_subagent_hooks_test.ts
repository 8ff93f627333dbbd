// End-to-end: hooks and subagents under attack (docs/guides/hooks.md "Subagents"), the real CLI with a
// Worker child against the fake Anthropic server and real bash hook scripts: an agent file's own hooks
// cannot lift the settings' policy hook (a child never has fewer hooks than its parent) and their
// `allow` grants nothing a deny rule refuses; a child's hook commands run in the child's OS sandbox
// (a plan-mode child's hook cannot write the workspace, the parent's can).

import assert from "node:assert/strict";
import {
  fakeTurn,
  type RecordedRequest,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { bladeSandbox } from "./support/blade.ts";
import { textsOf } from "./support/claude_hook_cases.ts";
import { PROMPT_HOOK_SCHEMA } from "../lib/hooks/prompt_hook.ts";

const ENV = (url: string) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-fake" });

/** The child's requests (its system prompt has its agent's body), else the parent's, each in order. */
function routed(
  childTurns: ReturnType<typeof fakeTurn>[],
  parentTurns: ReturnType<typeof fakeTurn>[],
  marker: string,
) {
  const requests: { child: boolean; request: RecordedRequest<AnthropicRequestBody> }[] = [];
  return {
    requests,
    handler: (request: RecordedRequest<AnthropicRequestBody>) => {
      const child = JSON.stringify(request.body.system ?? "").includes(marker);
      requests.push({ child, request });
      return (child ? childTurns : parentTurns).shift() ?? fakeTurn({ text: "Out of script." });
    },
  };
}

const agentCall = (type: string) =>
  fakeTurn({
    toolCalls: [{
      name: "Agent",
      input: { subagent_type: type, description: "Do it", prompt: "Do the work now." },
    }],
  });

Deno.test("subagent hooks: an agent file's allow lifts neither the settings' policy hook nor a deny rule", async () => {
  await using box = await bladeSandbox();
  await box.write("keep.txt", "x\n");
  const policy = await box.write(
    "policy.sh",
    `input=$(cat)\nif grep -q forbidden <<<"$input"; then echo "Policy: no forbidden commands" >&2; exit 2; fi\n`,
  );
  const allowAll = await box.write(
    "allow.sh",
    `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"agent says yes"}}'\n`,
  );
  await box.write(
    ".claude/settings.json",
    JSON.stringify({
      permissions: { allow: ["Bash"], deny: ["Bash(rm:*)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `bash ${policy}` }] }] },
    }),
  );
  await box.write(
    ".claude/agents/opener.md",
    `---\nname: opener\ndescription: Tries to open everything.\ntools: Bash\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: bash ${allowAll}\n---\nYou open things.\n`,
  );
  const { handler, requests } = routed(
    [
      fakeTurn({
        toolCalls: [{ name: "Bash", input: { command: "echo forbidden > made.txt", description: "a" } }],
      }),
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "rm keep.txt", description: "b" } }] }),
      fakeTurn({
        toolCalls: [{ name: "Bash", input: { command: "echo fine > fine.txt", description: "c" } }],
      }),
      fakeTurn({ text: "child done" }),
    ],
    [agentCall("opener"), fakeTurn({ text: "Parent done." })],
    "You open things.",
  );
  await using server = startFakeAnthropicServer({ handler });
  const run = await box.run(["-p", "go", "--output-format", "json", "--trust-workspace"], {
    env: ENV(server.url),
  });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  await assert.rejects(Deno.stat(`${box.workspace}/made.txt`));
  assert.equal(await Deno.readTextFile(`${box.workspace}/keep.txt`), "x\n");
  assert.equal(
    await Deno.readTextFile(`${box.workspace}/fine.txt`),
    "fine\n",
    "the agent hook's allow did pass a call",
  );
  const childResults = requests.filter((r) => r.child).flatMap((r) =>
    textsOf((r.request.body.messages ?? []).slice(-1)).filter((b) => b.type === "tool_result").map((b) =>
      b.text ?? ""
    )
  );
  assert.match(
    childResults[0]!,
    /^PreToolUse:Bash hook error: \[bash .*policy\.sh\]: Policy: no forbidden commands/,
  );
  assert.match(childResults[1]!, /rm keep\.txt|denied|Permission/i);
  const result = JSON.parse(run.stdout);
  assert.deepEqual(
    (result.permission_denials as { tool_input: { command: string } }[]).map((d) => d.tool_input.command),
    ["echo forbidden > made.txt", "rm keep.txt"],
  );
});

const hasSandbox = await new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

Deno.test({
  name:
    "subagent hooks: a child's hook runs in the child's OS sandbox (plan mode: it cannot write), the parent's in its own",
  ignore: !hasSandbox,
}, async () => {
  await using box = await bladeSandbox();
  await box.write("a.txt", "hello\n");
  const writer = await box.write(
    "writer.sh",
    `input=$(cat)\nif grep -q agent_id <<<"$input"; then f=child-wrote; else f=parent-wrote; fi\n` +
      // A hook that could not write says so by blocking the call (its words reach the model).
      `touch "$CLAUDE_PROJECT_DIR/$f" 2>/dev/null || { echo "$f: could not write" >&2; exit 2; }\n`,
  );
  await box.write(
    ".claude/settings.json",
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `bash ${writer}` }] }] },
    }),
  );
  await box.write(
    ".claude/agents/planner.md",
    "---\nname: planner\ndescription: Plans only.\ntools: Read\npermissionMode: plan\n---\nYou plan things.\n",
  );
  const read = fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "a.txt" } }] });
  const { handler, requests } = routed(
    [structuredClone(read), fakeTurn({ text: "planned" })],
    [structuredClone(read), agentCall("planner"), fakeTurn({ text: "Parent done." })],
    "You plan things.",
  );
  await using server = startFakeAnthropicServer({ handler });
  const run = await box.run(["-p", "go", "--output-format", "json", "--trust-workspace"], {
    env: ENV(server.url),
  });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  await Deno.stat(`${box.workspace}/parent-wrote`);
  await assert.rejects(Deno.stat(`${box.workspace}/child-wrote`));
  // The child's hook ran, in the child's read-only sandbox.
  const child = requests.filter((r) => r.child).at(-1)!;
  const results = textsOf(child.request.body.messages ?? []).filter((b) => b.type === "tool_result");
  assert.match(results[0]!.text ?? "", /PreToolUse:Read hook error: .*child-wrote: could not write/);
});

Deno.test("subagent hooks: `blade run <agent>` fires the settings' and the agent's hooks for its child, named after its ad-hoc parent", async () => {
  await using box = await bladeSandbox();
  const log = `${box.root}/hooks.log`;
  const logging = (name: string, then = "") =>
    box.write(`${name}.sh`, `input=$(cat)\nprintf '%s\\n' "$input" >> '${log}'\n${then}\n`);
  const policy = await logging(
    "policy",
    `if grep -q forbidden <<<"$input"; then echo "Policy says no" >&2; exit 2; fi`,
  );
  const after = await logging("after");
  await box.write(
    ".claude/settings.json",
    JSON.stringify({
      permissions: { allow: ["Bash"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `bash ${policy}` }] }] },
    }),
  );
  await box.write(
    ".claude/agents/worker.md",
    `---\nname: worker\ndescription: Works.\ntools: Bash\nhooks:\n  PostToolUse:\n    - hooks:\n        - type: command\n          command: bash ${after}\n---\nYou work.\n`,
  );
  await using server = startFakeAnthropicServer([
    fakeTurn({
      toolCalls: [{ name: "Bash", input: { command: "echo forbidden > made.txt", description: "a" } }],
    }),
    fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo fine", description: "b" } }] }),
    fakeTurn({ text: "worked" }),
  ]);
  const run = await box.run(["run", "worker", "Do the work now.", "--trust-workspace"], {
    env: ENV(server.url),
  });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  await assert.rejects(Deno.stat(`${box.workspace}/made.txt`));
  const inputs = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(inputs.map((i) => [i.hook_event_name, i.tool_input.command, i.agent_type]), [
    ["PreToolUse", "echo forbidden > made.txt", "worker"],
    ["PreToolUse", "echo fine", "worker"],
    ["PostToolUse", "echo fine", "worker"],
  ]);
  assert.match(inputs[0].session_id, /^session-/);
  assert.ok(inputs.every((i) => i.session_id === inputs[0].session_id && i.agent_id.startsWith("agent-")));
  assert.ok((inputs[0].transcript_path as string).endsWith(`${inputs[0].session_id}.jsonl`));
});

/**
 * A settings `prompt` hook judging a subagent's calls: the main thread asks the model (a Worker child
 * asks it through its hook call, as it does for command hooks) with the child's input (`agent_id`,
 * `agent_type`) and Claude Code's evaluator instructions; `{"ok": false}` refuses the child's call with
 * `[prompt]: reason` and ends the child's run there (a PreToolUse prompt block ends its session, as
 * Claude Code's ends its run); the parent goes on.
 */
for (const where of ["Worker", "main thread"] as const) {
  Deno.test(`subagent hooks: a prompt hook judges a child's call (child in a ${where})`, async () => {
    await using box = await bladeSandbox();
    const prompt = "Refuse any command that writes a file. $ARGUMENTS";
    await box.write(
      ".claude/settings.json",
      JSON.stringify({
        permissions: { allow: ["Bash"] },
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "prompt", prompt }] }] },
      }),
    );
    await box.write(
      ".claude/agents/writer.md",
      "---\nname: writer\ndescription: Writes.\ntools: Bash\n---\nYou write.\n",
    );
    const answers = [JSON.stringify({ ok: false, reason: "it writes a file" })];
    const sides: RecordedRequest<AnthropicRequestBody>[] = [];
    const { handler, requests } = routed(
      [
        fakeTurn({
          toolCalls: [{ name: "Bash", input: { command: "echo x > made.txt", description: "a" } }],
        }),
        fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo fine", description: "b" } }] }),
        fakeTurn({ text: "child done" }),
      ],
      [agentCall("writer"), fakeTurn({ text: "Parent done." })],
      "You write.",
    );
    await using server = startFakeAnthropicServer({
      handler: (request) => {
        if ((request.body.tools ?? []).length > 0) return handler(request);
        sides.push(request);
        return fakeTurn({ text: answers.shift() ?? "{}" });
      },
    });
    const run = await box.run(["-p", "go", "--output-format", "json", "--trust-workspace"], {
      env: { ...ENV(server.url), ...(where === "main thread" ? { BLADE_CHILD_SANDBOX: "none" } : {}) },
    });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    await assert.rejects(Deno.stat(`${box.workspace}/made.txt`));
    assert.equal(sides.length, 1, "one side request for the child's call");
    const asked = textsOf(sides[0]!.body.messages ?? []).map((b) => b.text ?? "");
    assert.equal(asked.length, 1);
    assert.ok(asked[0]!.startsWith("Refuse any command that writes a file. {"), asked[0]);
    const input = JSON.parse(asked[0]!.slice(asked[0]!.indexOf("{")));
    assert.equal(input.hook_event_name, "PreToolUse");
    assert.equal(input.agent_type, "writer");
    assert.match(String(input.agent_id), /^agent-/);
    assert.deepEqual(input.tool_input, { command: "echo x > made.txt", description: "a" });
    assert.deepEqual(
      (sides[0]!.body as { output_config?: { format?: unknown } }).output_config?.format,
      { type: "json_schema", schema: JSON.parse(JSON.stringify(PROMPT_HOOK_SCHEMA)) },
    );
    const result = JSON.parse(run.stdout);
    assert.deepEqual(
      (result.permission_denials as { tool_input: { command: string } }[]).map((d) => d.tool_input.command),
      ["echo x > made.txt"],
    );
    assert.equal(requests.filter((r) => r.child).length, 1, "the child's run ended at the refusal");
    assert.equal(result.result, "Parent done.");
  });
}

/**
 * An agent file's Stop `prompt` hook (its run's SubagentStop) judges the child's own conversation: the
 * side request carries the child's task and answer before Claude Code's question, wherever the child's
 * loop runs (a Worker sends its conversation with its hook call); `{"ok": false}` sends the reason back
 * to the child, `{"ok": true}` lets it end. The run configures no hook of its own: an agent file's hooks
 * run all the same.
 */
for (const where of ["Worker", "main thread"] as const) {
  Deno.test(`subagent hooks: a SubagentStop prompt hook judges the child's conversation (child in a ${where})`, async () => {
    await using box = await bladeSandbox();
    await box.write(".claude/settings.json", JSON.stringify({ permissions: { allow: ["Bash"] } }));
    await box.write(
      ".claude/agents/finisher.md",
      "---\nname: finisher\ndescription: Finishes.\nhooks:\n  Stop:\n    - hooks:\n        - type: prompt\n          prompt: The child said FINISHED.\n---\nYou finish.\n",
    );
    const answers = [
      JSON.stringify({ ok: false, reason: "it did not say FINISHED" }),
      JSON.stringify({ ok: true, reason: "it said FINISHED" }),
    ];
    const sides: RecordedRequest<AnthropicRequestBody>[] = [];
    const { handler, requests } = routed(
      [fakeTurn({ text: "half way" }), fakeTurn({ text: "FINISHED" })],
      [agentCall("finisher"), fakeTurn({ text: "Parent done." })],
      "You finish.",
    );
    await using server = startFakeAnthropicServer({
      handler: (request) => {
        if ((request.body.tools ?? []).length > 0) return handler(request);
        sides.push(request);
        return fakeTurn({ text: answers.shift() ?? "{}" });
      },
    });
    const run = await box.run(["-p", "go", "--output-format", "json", "--trust-workspace"], {
      env: { ...ENV(server.url), ...(where === "main thread" ? { BLADE_CHILD_SANDBOX: "none" } : {}) },
    });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.equal(sides.length, 2, run.stderr + JSON.stringify(requests.map((r) => r.child)));
    const first = textsOf(sides[0]!.body.messages ?? []).map((b) => `${b.role}: ${b.text ?? ""}`);
    assert.ok(first.some((t) => t.includes("Do the work now.")), first.join("\n"));
    assert.equal(first.at(-2), "assistant: half way");
    assert.ok(
      first.at(-1)!.startsWith(
        "user: Based on the conversation transcript above, has the following stopping condition been satisfied? Answer based on transcript evidence only.\n\nCondition: The child said FINISHED.\n\nARGUMENTS: {",
      ),
      first.at(-1),
    );
    assert.match(first.at(-1)!, /"hook_event_name":"SubagentStop"/);
    const child = requests.filter((r) => r.child);
    assert.equal(child.length, 2, "the block sent the child on once");
    assert.ok(
      textsOf(child[1]!.request.body.messages ?? []).some((b) =>
        (b.text ?? "").includes("Stop hook feedback:\n[The child said FINISHED.]: it did not say FINISHED")
      ),
    );
    assert.equal(JSON.parse(run.stdout).result, "Parent done.");
  });
}
