// Owns a remote child's job (docs/guides/remote.md): what the parent publishes to the work queue, and
// how a worker reads it back into the spec it runs, purely. A job is data, never code: the child's
// identity, config, prompt, lineage and history come from its sidecar record (which the store checks),
// and the job adds only what the parent computed and the record does not hold — depth, trust, the
// tool ceiling, what was capped, the structured-output schema, the auditor flag, the memory block, the
// skills (job_skills.ts: folders in the checkout, or carried text) — each checked by type; anything
// else in it is ignored. Paths, the commands' environment and the model credentials are the worker's
// own. `grantRefusal` is the worker's maximum: a job asking more (a wider permission mode, a tool the
// worker does not allow) is refused, never narrowed in silence.

import { array, boolean, number, object, optional, parseWith, record, string } from "../protocol/check.ts";
import { isValidSessionId } from "../protocol/ids.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { BLADE_TOOL_NAMES } from "../protocol/tool_rule.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { type ChildSpec, childToolNames } from "../executor/child.ts";
import { narrowerMode } from "../permissions/ceiling.ts";
import type { CommandSetup } from "../tools/tool.ts";
import type { StructuredOutputOptions } from "../tools/structured_output.ts";
import { skillsReminder } from "../skills/skills_context.ts";
import { type JobSkill, jobSkillsCheck, skillsInvalid, skillsOfJob } from "./job_skills.ts";

export const JOB_VERSION = 1;

/** What the parent computed for the child beyond its record. */
export interface JobGrant {
  depth: number;
  trusted: boolean;
  toolCeiling?: string[];
  capped?: string[];
  structuredOutput?: StructuredOutputOptions;
  /** A read-only auditor (tools/audited.ts): its commands get the worker's minimal environment. */
  audit: boolean;
  /** The memory block the child's requests open with. */
  memory?: string;
  /** The run's skills as the child gets them (absent: none, as for a parent with no skills). */
  skills?: JobSkill[];
  /** Whether the child's requests open with the skills listing (a local child's do when the run lists any). */
  listing?: boolean;
}

export interface RemoteJob {
  version: typeof JOB_VERSION;
  agentId: string;
  grant: JobGrant;
}

/** The job of a child the parent planned as `spec`; `skills`: its catalogue as job_skills.ts carries it. */
export function jobOf(spec: ChildSpec, o: { skills?: JobSkill[] } = {}): RemoteJob {
  return {
    version: JOB_VERSION,
    agentId: spec.id,
    grant: {
      depth: spec.depth,
      trusted: spec.trusted,
      ...(spec.toolCeiling === undefined ? {} : { toolCeiling: [...spec.toolCeiling] }),
      ...(spec.capped === undefined ? {} : { capped: [...spec.capped] }),
      ...(spec.structuredOutput === undefined ? {} : { structuredOutput: spec.structuredOutput }),
      audit: spec.audit !== undefined,
      ...(spec.context?.memory === undefined ? {} : { memory: spec.context.memory }),
      ...(o.skills === undefined || o.skills.length === 0 ? {} : { skills: o.skills }),
      ...(spec.context?.listing === undefined ? {} : { listing: true }),
    },
  };
}

const texts = array(string());
const jobCheck = object({
  version: number({ int: true, min: JOB_VERSION, max: JOB_VERSION }),
  agentId: string({ min: 1 }),
  grant: object({
    depth: number({ int: true, min: 1, max: 64 }),
    trusted: boolean(),
    toolCeiling: optional(texts),
    capped: optional(texts),
    structuredOutput: optional(object({
      schema: record(),
      maxRetries: optional(number({ int: true, min: 0, max: 10 })),
      purpose: optional(string()),
      endAtAnswer: optional(boolean()),
    })),
    audit: boolean(),
    memory: optional(string()),
    skills: optional(jobSkillsCheck),
    listing: optional(boolean()),
  }),
});

/** The job in `text`, or why it is none (a worker drops it). */
export function parseJob(text: string): { job: RemoteJob } | { invalid: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { invalid: "not JSON" };
  }
  const parsed = parseWith<RemoteJob>(jobCheck, raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { invalid: `${issue?.path.map(String).join(".") ?? ""}: ${issue?.message ?? "invalid"}` };
  }
  if (!isValidSessionId(parsed.data.agentId)) return { invalid: "agentId is not a session id" };
  const skills = skillsInvalid(parsed.data.grant.skills);
  if (skills !== undefined) return { invalid: skills };
  return { job: parsed.data };
}

/** Where and how the worker runs the child: its checkout, and its own commands' environment. */
export interface WorkerPlace {
  workspaceRoot: string;
  commands?: CommandSetup;
  /** The environment of an auditor's commands on this machine. */
  auditEnv: Record<string, string>;
}

/** The spec the worker runs: the record's child with the job's grant, in the worker's place. */
export function specOfJob(job: RemoteJob, o: { record: SidecarRecord; place: WorkerPlace }): ChildSpec {
  const { record: r, place } = o;
  const g = job.grant;
  const rules = r.configSnapshot.rules;
  return {
    id: r.id,
    subagentType: r.subagentType,
    description: r.description,
    prompt: r.prompt,
    config: r.configSnapshot,
    parentSessionId: r.parentSessionId,
    parentProjectPath: r.parentProjectPath,
    workspaceRoot: place.workspaceRoot,
    trusted: g.trusted,
    depth: g.depth,
    lineage: r.resumedFrom === undefined
      ? { rootAgentId: r.rootAgentId, resumeDepth: r.resumeDepth }
      : { rootAgentId: r.rootAgentId, resumedFrom: r.resumedFrom, resumeDepth: r.resumeDepth },
    ...(r.messages.length === 0 ? {} : { initialMessages: r.messages }),
    ...(rules === undefined ? {} : { rules }),
    ...(g.toolCeiling === undefined ? {} : { toolCeiling: g.toolCeiling }),
    ...(g.capped === undefined ? {} : { capped: g.capped }),
    ...(g.structuredOutput === undefined ? {} : { structuredOutput: g.structuredOutput }),
    ...(place.commands === undefined ? {} : { commands: place.commands }),
    ...(g.audit ? { audit: { commandEnv: place.auditEnv } } : {}),
    ...contextOfJob(g, place),
  };
}

/** The child's memory and skills from the job, as a local child gets them (executor/child_context.ts). */
function contextOfJob(g: JobGrant, place: WorkerPlace): Pick<ChildSpec, "context"> {
  const skills = skillsOfJob(g.skills ?? [], { workspaceRoot: place.workspaceRoot });
  const listing = g.listing === true ? skillsReminder(skills) : undefined;
  if (g.memory === undefined && skills.length === 0) return {};
  return {
    context: {
      ...(g.memory === undefined ? {} : { memory: g.memory }),
      ...(listing === undefined ? {} : { listing }),
      skills,
    },
  };
}

/** The most a worker runs (`blade worker --max-permission-mode`, `--max-tools`). */
export interface WorkerMax {
  mode: PermissionMode;
  /** The tools a child may have here; absent: every built-in tool. */
  tools?: readonly string[];
}

/** Why the worker refuses to run `spec`, or undefined when its grant is within the worker's maximum. */
export function grantRefusal(spec: ChildSpec, max: WorkerMax): string | undefined {
  const mode = spec.config.permissionMode;
  if (narrowerMode(mode, max.mode) !== mode) {
    return `its permission mode ${mode} is wider than this worker's maximum ${max.mode}`;
  }
  if (max.tools !== undefined) {
    const tools = childToolNames(spec, [...(spec.toolCeiling ?? BLADE_TOOL_NAMES)]);
    const beyond = tools.filter((t) => !max.tools!.includes(t));
    if (beyond.length > 0) return `it may use ${beyond.join(", ")}, which this worker does not allow`;
  }
  return undefined;
}
