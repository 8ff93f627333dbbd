import assert from "node:assert/strict";
import { claudeStream } from "./claude_stream.ts";

Deno.test("claudeStream: system/init names the permission mode as Claude Code does (the Agent SDK's types)", () => {
  const modes: [string | undefined, string][] = [
    ["autoEdit", "acceptEdits"],
    ["yolo", "bypassPermissions"],
    ["plan", "plan"],
    ["dontAsk", "dontAsk"],
    [undefined, "default"],
  ];
  for (const [mode, expected] of modes) {
    const stream = claudeStream({
      cwd: "/w",
      includePartialMessages: false,
      apiKeySource: "none",
      uuid: () => "u",
      now: () => 0,
    });
    const [line] = stream.onEvent({
      type: "session_started",
      sessionId: "s",
      agentType: "main",
      model: "m",
      depth: 0,
      ...(mode === undefined ? {} : { permissionMode: mode }),
    });
    assert.equal(JSON.parse(line!).permissionMode, expected, String(mode));
  }
});
