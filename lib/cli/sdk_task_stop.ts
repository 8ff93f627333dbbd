// Owns the Agent SDK's stopTask() (`stop_task`, docs/guides/agent-sdk.md): the running turn's background
// task of that id — an agent or a command of this session — is stopped as TaskStop stops it (its record
// says cancelled; the stream's task_notification says `stopped`). An id no task of the session has, or no
// turn running, stops nothing and is no error, as in Claude Code.

import type { App } from "../app.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { TaskControl } from "../run/task_control.ts";
import { taskControlDeps } from "../run/subagent_env.ts";

/** Stops `taskId` among the tasks of the turn `runtime` runs; what happened, for a debug line. */
export async function stopSessionTask(
  app: App,
  taskId: string,
  o: { runtime: Runtime | undefined; mode: PermissionMode },
): Promise<string> {
  const session = o.runtime?.session();
  if (session === undefined) return `stop_task ${taskId}: no turn is running`;
  const signal = new AbortController().signal;
  const result = await new TaskControl(taskControlDeps(session.env), session.runtime.owner).stop(taskId, {
    ports: app.ports,
    sessionId: session.parent.sessionId,
    workspaceRoot: app.workspace,
    storageRoot: app.layout.root,
    trusted: app.workspaceGrant,
    mode: o.mode,
    callId: "sdk-stop-task",
    signal,
    emit: () => {},
  });
  return result.content;
}
