// Owns ready-made sidecar records for tests, benchmarks and crash scenarios. Never imported by main.ts.

import type { SidecarRecord } from "../store/schema.ts";
import type { SidecarOwner } from "../store/store.ts";
import type { ChildSpec } from "../executor/child.ts";

/** 2026-01-01T00:00:00Z, FakeClock's default start. */
export const FIXTURE_TIME = Date.UTC(2026, 0, 1);

export const FIXTURE_OWNER: SidecarOwner = {
  parentSessionId: "session-parent000000000000001",
  parentProjectPath: "/home/dev/project",
};

/** A valid fresh, running child record of FIXTURE_OWNER; `overrides` replace whole fields. */
export function sidecarFixture(id: string, overrides: Partial<SidecarRecord> = {}): SidecarRecord {
  return {
    schemaVersion: 2,
    id,
    subagentType: "general-purpose",
    description: "Survey the code",
    prompt: "Find every place that writes a sidecar.",
    messages: [{
      role: "user",
      content: [{ type: "text", text: "Find every place that writes a sidecar." }],
    }],
    status: "running",
    result: { success: false, message: "" },
    background: false,
    stats: { tokens: 0, toolCalls: 0, durationMs: 0 },
    createdAt: FIXTURE_TIME,
    lastActiveAt: FIXTURE_TIME,
    ...FIXTURE_OWNER,
    rootAgentId: id,
    resumeDepth: 0,
    configSnapshot: {
      name: "general-purpose",
      description: "General-purpose agent",
      systemPrompt: "You are a careful engineer.",
      tools: null,
      disallowedTools: [],
      model: "claude-sonnet-4-5",
      permissionMode: "default",
      maxTurns: 50,
      skills: [],
      isolation: "none",
      source: "built-in",
    },
    workspaceRoot: FIXTURE_OWNER.parentProjectPath,
    isolation: "none",
    ...overrides,
  };
}

/** A completed, resumed, worktree-isolated record with every optional field set. */
export function fullSidecarFixture(id: string, overrides: Partial<SidecarRecord> = {}): SidecarRecord {
  const base = sidecarFixture(id);
  return {
    ...base,
    background: true,
    messages: [
      ...base.messages,
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking." },
          { type: "tool_call", id: "call_1", name: "Grep", input: { pattern: "writeAtomic" } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", callId: "call_1", content: "lib/sys/fs.ts", isError: false }],
        hidden: true,
      },
      { role: "assistant", content: [{ type: "text", text: "Only lib/sys/fs.ts writes atomically." }] },
    ],
    status: "completed",
    result: {
      success: true,
      message: "Only lib/sys/fs.ts writes atomically.",
      error: "none",
      verificationCommands: ["deno test"],
      verificationVerdict: { verdict: "pass", summary: "All checks pass.", findings: [] },
      modifiedFiles: [`${FIXTURE_OWNER.parentProjectPath}/lib/a.ts`],
    },
    stats: { tokens: 1234, toolCalls: 1, durationMs: 5678 },
    lastActiveAt: FIXTURE_TIME + 5678,
    completedAt: FIXTURE_TIME + 5678,
    processId: 4242,
    processIdentity: { platform: "linux", fingerprint: "ab".repeat(32) },
    restartRecovery: { outcome: "completed", recoveredAt: FIXTURE_TIME + 9000 },
    providerAdmissionOwnerId: "admission-owner-1",
    rootAgentId: "agent-root",
    resumedFrom: "agent-source",
    resumeDepth: 2,
    workspaceRoot: "/home/dev/.blade/worktrees/project-0123456789ab/agent+x",
    isolation: "worktree",
    worktree: {
      name: "agent+x",
      branch: "blade-worktree-agent+x-01234567",
      baseCommit: "0123456789abcdef0123456789abcdef01234567",
      originalBranch: "main",
      repositoryRoot: FIXTURE_OWNER.parentProjectPath,
      originalWorkspaceRoot: FIXTURE_OWNER.parentProjectPath,
      worktreeRoot: "/home/dev/.blade/worktrees/project-0123456789ab/agent+x",
      workspaceRoot: "/home/dev/.blade/worktrees/project-0123456789ab/agent+x",
      sourceHadChanges: false,
      ownerAgentId: "agent-root",
      createdAt: FIXTURE_TIME,
      state: "kept",
      changedFiles: 1,
      commits: 0,
      keptBecause: "1 file changed",
    },
    ...overrides,
  };
}

/** What a child's spec holds that its record does not: where and how it runs. */
type SpecRest = Omit<
  ChildSpec,
  "id" | "subagentType" | "description" | "prompt" | "config" | "parentSessionId" | "parentProjectPath"
>;

/** The spec a parent plans for `record`'s child: the record's identity, prompt and config, and `rest`. */
export function childSpecFixture(record: SidecarRecord, rest: SpecRest): ChildSpec {
  return {
    id: record.id,
    subagentType: record.subagentType,
    description: record.description,
    prompt: record.prompt,
    config: record.configSnapshot,
    parentSessionId: record.parentSessionId,
    parentProjectPath: record.parentProjectPath,
    ...rest,
  };
}
