// Owns the migration of legacy sidecars (v1: no `schemaVersion`, no lineage, no config snapshot…)
// to schema v2 with sensible defaults. Does not validate: codec.ts validates the result like any v2
// record, so a legacy file missing its essentials (id, status, owner, createdAt) still fails closed.

/** True for records written before schema v2 (no `schemaVersion`, or `schemaVersion: 1`). */
export function isLegacyRecord(raw: Record<string, unknown>): boolean {
  return raw["schemaVersion"] === undefined || raw["schemaVersion"] === 1;
}

/** A v2-shaped copy of a legacy record. Fields it does not know are kept as they are. */
export function normaliseLegacy(raw: Record<string, unknown>): Record<string, unknown> {
  const id = raw["id"];
  const status = raw["status"];
  const worktree = isObject(raw["worktree"]) ? raw["worktree"] : undefined;
  const isolation = raw["isolation"] ?? (worktree === undefined ? "none" : "worktree");
  const resumedFrom = raw["resumedFrom"];
  const createdAt = epoch(raw["createdAt"]);
  const completedAt = epoch(raw["completedAt"]);
  const out: Record<string, unknown> = {
    ...raw,
    schemaVersion: 2,
    description: raw["description"] ?? "",
    prompt: raw["prompt"] ?? "",
    messages: raw["messages"] ?? [],
    result: raw["result"] ?? { success: status === "completed", message: "" },
    background: raw["background"] ?? false,
    stats: { tokens: 0, toolCalls: 0, durationMs: 0, ...(isObject(raw["stats"]) ? raw["stats"] : {}) },
    createdAt,
    lastActiveAt: epoch(raw["lastActiveAt"]) ?? completedAt ?? createdAt,
    rootAgentId: raw["rootAgentId"] ?? resumedFrom ?? id,
    resumeDepth: raw["resumeDepth"] ?? (resumedFrom === undefined ? 0 : 1),
    workspaceRoot: raw["workspaceRoot"] ?? worktree?.["path"] ?? raw["parentProjectPath"],
    isolation,
    configSnapshot: raw["configSnapshot"] ?? {
      name: raw["subagentType"],
      description: "",
      systemPrompt: "",
      tools: null,
      disallowedTools: [],
      model: "inherit",
      permissionMode: "default",
      maxTurns: null,
      skills: [],
      isolation,
      source: "legacy",
    },
  };
  if (completedAt !== undefined) out["completedAt"] = completedAt;
  const recovery = raw["restartRecovery"];
  if (isObject(recovery)) {
    out["restartRecovery"] = { ...recovery, recoveredAt: epoch(recovery["recoveredAt"]) };
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** v1 sometimes stored ISO timestamps; v2 stores epoch milliseconds. Anything else is left to fail. */
function epoch(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : value;
}
