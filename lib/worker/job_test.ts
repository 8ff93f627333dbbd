// A remote child's job (lib/worker/job.ts), table-tested: what the parent publishes, what a worker
// accepts (unknown fields dropped, wrong types refused), the spec it runs (identity, config and history
// from the record; paths and environment its own), and the worker's maximum (refused, never narrowed).

import assert from "node:assert/strict";
import { childSpecFixture, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import type { ChildSpec } from "../executor/child.ts";
import { grantRefusal, jobOf, parseJob, specOfJob } from "./job.ts";

const ID = "agent-remote1";
const record = sidecarFixture(ID, {
  isolation: "remote",
  background: true,
  resumedFrom: "agent-source",
  rootAgentId: "agent-source",
  resumeDepth: 1,
});

const spec: ChildSpec = childSpecFixture(record, {
  workspaceRoot: "/parent/machine/work",
  trusted: true,
  depth: 2,
  lineage: { rootAgentId: "agent-source", resumedFrom: "agent-source", resumeDepth: 1 },
  toolCeiling: ["Read", "Grep", "Bash"],
  capped: ["tools Write not granted: the parent does not have them"],
  commands: { env: { SECRET_OF_THE_PARENT: "x" }, shell: "/bin/bash" },
  additionalDirs: ["/parent/machine/extra"],
  audit: { commandEnv: { PATH: "/parent/bin" } },
  context: { memory: "<memory>use tabs</memory>", listing: "skills…", skills: [] },
});

Deno.test("jobOf carries only what the record does not hold; no path, environment or skill file", () => {
  const job = jobOf(spec);
  assert.deepEqual(job, {
    version: 1,
    agentId: ID,
    grant: {
      depth: 2,
      trusted: true,
      toolCeiling: ["Read", "Grep", "Bash"],
      capped: ["tools Write not granted: the parent does not have them"],
      audit: true,
      memory: "<memory>use tabs</memory>",
      listing: true,
    },
  });
  assert.doesNotMatch(JSON.stringify(job), /parent\/machine|SECRET_OF_THE_PARENT|\/parent\/bin/);
});

const cases: [string, unknown, RegExp | null][] = [
  ["a published job", jobOf(spec), null],
  ["not JSON", "{", /not JSON/],
  ["another version", { ...jobOf(spec), version: 2 }, /version/],
  ["no session id", { ...jobOf(spec), agentId: "../etc" }, /agentId is not a session id/],
  ["a depth out of range", { ...jobOf(spec), grant: { ...jobOf(spec).grant, depth: 0 } }, /grant\.depth/],
  [
    "trust not a boolean",
    { ...jobOf(spec), grant: { ...jobOf(spec).grant, trusted: "yes" } },
    /grant\.trusted/,
  ],
  [
    "a ceiling not a list",
    { ...jobOf(spec), grant: { ...jobOf(spec).grant, toolCeiling: "Bash" } },
    /toolCeiling/,
  ],
];

for (const [name, value, refusal] of cases) {
  Deno.test(`parseJob: ${name}`, () => {
    const got = parseJob(typeof value === "string" ? value : JSON.stringify(value));
    if (refusal === null) assert.ok("job" in got);
    else assert.match("invalid" in got ? got.invalid : "accepted", refusal);
  });
}

Deno.test("parseJob drops what it does not know (a command, an environment)", () => {
  const got = parseJob(
    JSON.stringify({ ...jobOf(spec), run: "rm -rf /", grant: { ...jobOf(spec).grant, env: { A: "1" } } }),
  );
  assert.ok("job" in got);
  assert.equal("run" in got.job, false);
  assert.equal("env" in got.job.grant, false);
});

Deno.test("specOfJob: the record's child with the job's grant, in the worker's place", () => {
  const got = specOfJob(jobOf(spec), {
    record: { ...record, messages: [{ role: "user", content: [{ type: "text", text: "earlier" }] }] },
    place: {
      workspaceRoot: "/worker/repo",
      commands: { env: { PATH: "/worker/bin" }, shell: "/bin/sh" },
      auditEnv: { PATH: "/worker/bin" },
    },
  });
  assert.equal(got.workspaceRoot, "/worker/repo");
  assert.equal(got.config, record.configSnapshot);
  assert.deepEqual(got.lineage, { rootAgentId: "agent-source", resumedFrom: "agent-source", resumeDepth: 1 });
  assert.equal(got.initialMessages?.length, 1);
  assert.deepEqual(got.commands, { env: { PATH: "/worker/bin" }, shell: "/bin/sh" });
  assert.deepEqual(got.audit, { commandEnv: { PATH: "/worker/bin" } });
  assert.deepEqual(got.context, { memory: "<memory>use tabs</memory>", skills: [] });
  assert.equal(got.additionalDirs, undefined);
  assert.deepEqual([got.depth, got.trusted, got.toolCeiling], [2, true, ["Read", "Grep", "Bash"]]);
});

Deno.test("grantRefusal: a wider mode or a tool the worker does not allow is refused", () => {
  const at = (mode: ChildSpec["config"]["permissionMode"]) => ({
    ...spec,
    config: { ...spec.config, permissionMode: mode },
  });
  assert.equal(grantRefusal(at("autoEdit"), { mode: "autoEdit" }), undefined);
  assert.equal(grantRefusal(at("plan"), { mode: "autoEdit" }), undefined);
  assert.equal(
    grantRefusal(at("yolo"), { mode: "autoEdit" }),
    "its permission mode yolo is wider than this worker's maximum autoEdit",
  );
  const tools = { ...spec, config: { ...spec.config, tools: null, disallowedTools: [] } };
  assert.equal(grantRefusal(tools, { mode: "yolo", tools: ["Read", "Grep", "Bash"] }), undefined);
  assert.equal(
    grantRefusal(tools, { mode: "yolo", tools: ["Read", "Grep"] }),
    "it may use Bash, which this worker does not allow",
  );
});
