// Continuing a session after a crash (recoverSession) on real files: a background child that ended
// after its parent was killed but before its notice was queued is queued once on restart; a child
// whose receipt the transcript already holds is not queued again. (Found by the 200-kill loop.)

import assert from "node:assert/strict";
import { recoverSession } from "./restart.ts";
import { FakeClock, fakeEnv, FakeProcess, sequentialIds } from "../testing/fakes.ts";
import { realFs } from "../sys/fs.ts";
import { storageLayout } from "../config/storage.ts";
import { FileSidecarStore } from "../store/file_store.ts";
import { FIXTURE_OWNER, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { TranscriptWriter } from "../session/transcript.ts";
import { messageEvents } from "../session/events.ts";
import { Inbox } from "../session/inbox.ts";
import type { Ports } from "../sys/mod.ts";

Deno.test("recoverSession queues the notice of a background child that ended while its parent was down, once", async () => {
  const root = await Deno.makeTempDir({ prefix: "blade-restart-" });
  try {
    const clock = new FakeClock();
    const ports: Ports = {
      fs: realFs(),
      clock,
      process: new FakeProcess(),
      ids: sequentialIds(),
      env: fakeEnv({}, { cwd: "/" }),
    };
    const layout = storageLayout(root);
    const store = new FileSidecarStore({ fs: ports.fs, clock, storageRoot: root });
    const done = {
      status: "completed" as const,
      result: { success: true, message: "found it" },
      background: true,
      completedAt: clock.now(),
    };
    await store.create(sidecarFixture("agent-bg-1", done));
    await store.create(sidecarFixture("agent-bg-2", done));
    const { parentSessionId: sessionId, parentProjectPath: projectPath } = FIXTURE_OWNER;
    const transcript = new TranscriptWriter({
      fs: ports.fs,
      clock,
      ids: ports.ids,
      path: layout.transcriptPath(projectPath, sessionId),
      sessionId,
      projectPath,
    });
    // The session launched both (each Task call is written with its subtask_ref before the child's
    // record exists); agent-bg-2's notice was already delivered (its receipt is in the transcript).
    const launched = (agentId: string, callId: string) => ({
      type: "subtask_ref" as const,
      callId,
      agentId,
      subagentType: "Explore",
      description: "Survey the code",
      background: true,
      state: "running" as const,
      lineage: { rootAgentId: agentId, resumeDepth: 0 },
    });
    await transcript.append([
      { type: "session_created", data: { agentType: "main", model: "m", depth: 0 } },
      ...messageEvents(ports.ids, {
        role: "assistant",
        content: [
          { type: "tool_call", id: "call_1", name: "Task", input: { subagent_session_id: "agent-bg-1" } },
          { type: "tool_call", id: "call_2", name: "Task", input: { subagent_session_id: "agent-bg-2" } },
        ],
      }, { parts: [launched("agent-bg-1", "call_1"), launched("agent-bg-2", "call_2")] }),
      ...messageEvents(
        ports.ids,
        { role: "user", content: [{ type: "text", text: "notice" }], hidden: true },
        {
          inboxId: "background-subagent-completion:agent-bg-2",
        },
      ),
    ]);
    const inbox = new Inbox({ fs: ports.fs, clock, path: layout.inboxPath(projectPath, sessionId) });
    const deps = { ports, store, layout };
    await recoverSession(deps, { sessionId, projectPath, transcript });
    assert.deepEqual((await inbox.pending()).map((e) => e.inboxId), [
      "background-subagent-completion:agent-bg-1",
    ]);
    await recoverSession(deps, { sessionId, projectPath, transcript });
    assert.equal((await inbox.pending()).length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
