// runChild's hook points (hooks.ts): a child's loop gets the hooks built for its spec where it runs
// (ChildDeps.hooks; a Worker builds its own deps), before StructuredOutput's retries. Real files, the
// real core tools and the scripted provider.

import assert from "node:assert/strict";
import { realPorts } from "../sys/mod.ts";
import { storageLayout } from "../config/storage.ts";
import { scriptedProvider } from "../provider/scripted.ts";
import { coreTools } from "../tools/registry.ts";
import type { ChildSpec } from "./child.ts";
import { runChild } from "./child.ts";

Deno.test("runChild: the hooks built for the child's spec see its tool calls and change its results", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-child-hooks-" }));
  try {
    await Deno.writeTextFile(`${dir}/notes.txt`, "hello\n");
    await Deno.mkdir(storageLayout(`${dir}/storage`).projectDir(dir), { recursive: true });
    const ports = realPorts();
    const spec: ChildSpec = {
      id: "agent-hooks",
      subagentType: "reader",
      description: "read the notes",
      prompt: "Read the notes.",
      config: {
        name: "reader",
        description: "reads",
        systemPrompt: "You read.",
        tools: ["Read"],
        disallowedTools: [],
        model: "scripted",
        permissionMode: "default",
        maxTurns: 5,
        skills: [],
        isolation: "none",
        source: "test",
      },
      parentSessionId: "session-parent",
      parentProjectPath: dir,
      workspaceRoot: dir,
      trusted: true,
      depth: 1,
      lineage: { rootAgentId: "agent-hooks", resumeDepth: 0 },
    };
    const built: string[] = [];
    const provider = scriptedProvider({
      agents: {
        reader: [{
          turns: [{ tool_calls: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "Read." }],
        }],
      },
    }, { clock: ports.clock });
    const outcome = await runChild(
      {
        ports,
        provider,
        layout: storageLayout(`${dir}/storage`),
        toolsFor: () => coreTools(),
        emit: () => {},
        maxTokens: 1000,
        platform: "linux",
        hooks: (child) => {
          built.push(child.id);
          return {
            afterToolCall: (request) => ({ annotate: `seen by ${child.subagentType}: ${request.call.name}` }),
          };
        },
      },
      spec,
      new AbortController().signal,
    );
    assert.equal(outcome.success, true, outcome.error);
    assert.deepEqual(built, ["agent-hooks"]);
    assert.match(outcome.toolResults[0]!.result.content, /hello[\s\S]*\n\nseen by reader: Read$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
