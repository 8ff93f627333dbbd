// A remote child's skills (lib/worker/job_skills.ts), table-tested: a project skill in the snapshot goes
// by its folder and is read from the checkout; the user's, and a project skill the snapshot leaves
// out, go as text within the pinned limit (what does not fit says why when called); a worker refuses
// a job whose skills are not what a parent publishes; and the child's catalog over them makes no
// folder of the parent's readable and loads a carried skill's text without a file.

import assert from "node:assert/strict";
import type { SkillFile } from "../skills/skill_file.ts";
import { childCatalog } from "../executor/child_context.ts";
import { CARRIED_SKILL_NOTE } from "../skills/skills_context.ts";
import { realFs } from "../sys/fs.ts";
import { jobOf, parseJob, specOfJob } from "./job.ts";
import {
  isSkillFolder,
  type JobSkill,
  jobSkills,
  MAX_CARRIED_SKILL_BYTES,
  MAX_JOB_SKILLS,
  skillsOfJob,
} from "./job_skills.ts";
import { childSpecFixture, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import type { ChildSpec } from "../executor/child.ts";

const file = (name: string, source: "user" | "project", over: Partial<SkillFile> = {}): SkillFile => {
  const dir = source === "user" ? `/home/ana/.claude/skills/${name}` : `/src/app/.claude/skills/${name}`;
  return {
    name,
    description: `The ${name} one`,
    source,
    dir,
    path: `${dir}/SKILL.md`,
    userOnly: false,
    ...over,
  };
};

Deno.test("the limits: 256 KiB of carried skill text per job, 200 skills", () => {
  assert.equal(MAX_CARRIED_SKILL_BYTES, 262_144);
  assert.equal(MAX_JOB_SKILLS, 200);
});

Deno.test("jobSkills: in the snapshot by folder; the user's and the left-out ones as text; unreadable said", () => {
  const skills = [
    file("deploy", "project", { allowedTools: ["Bash(git *)"] }),
    file("ignored", "project"),
    file("notes", "user", { userOnly: true }),
    file("gone", "user"),
  ];
  const got = jobSkills(skills, {
    inSnapshot: (folder) => folder === "deploy",
    texts: new Map([["ignored", "Ignored body"], ["notes", "Notes body"]]),
  });
  assert.deepEqual(got, [
    {
      name: "deploy",
      description: "The deploy one",
      userOnly: false,
      allowedTools: ["Bash(git *)"],
      folder: "deploy",
    },
    { name: "ignored", description: "The ignored one", userOnly: false, text: "Ignored body" },
    { name: "notes", description: "The notes one", userOnly: true, text: "Notes body" },
    {
      name: "gone",
      description: "The gone one",
      userOnly: false,
      unavailable: "The skill gone could not be read on the parent's machine.",
    },
  ]);
  // No path of the parent's machine goes with the job.
  assert.doesNotMatch(JSON.stringify(got), /\/home\/ana|\/src\/app/);
});

Deno.test("jobSkills: carried texts share the byte limit in catalogue order; one that does not fit says why", () => {
  const big = "é".repeat(MAX_CARRIED_SKILL_BYTES / 2 - 10); // 2 bytes a character
  const got = jobSkills([file("a", "user"), file("b", "user"), file("c", "user")], {
    inSnapshot: () => false,
    texts: new Map([["a", big], ["b", big], ["c", "small"]]),
  });
  assert.equal(got[0]?.text, big);
  assert.equal(
    got[1]?.unavailable,
    `The skill b (${MAX_CARRIED_SKILL_BYTES - 20} bytes) did not travel with this remote child's job: ` +
      "the skills not in the repository may take 262144 bytes together.",
  );
  assert.equal(got[2]?.text, "small");
});

Deno.test("skillsOfJob: a folder is the checkout's; a carried skill has no folder or file here", () => {
  const got = skillsOfJob([
    { name: "deploy", description: "d", userOnly: false, folder: "deploy" },
    { name: "notes", description: "n", userOnly: false, text: "Notes body", allowedTools: ["Read"] },
    { name: "gone", description: "g", userOnly: false, unavailable: "why" },
  ], { workspaceRoot: "/worker/job/repo" });
  assert.deepEqual(got, [
    {
      name: "deploy",
      description: "d",
      userOnly: false,
      source: "project",
      dir: "/worker/job/repo/.claude/skills/deploy",
      path: "/worker/job/repo/.claude/skills/deploy/SKILL.md",
    },
    {
      name: "notes",
      description: "n",
      userOnly: false,
      allowedTools: ["Read"],
      source: "user",
      dir: "",
      path: "",
      text: "Notes body",
    },
    {
      name: "gone",
      description: "g",
      userOnly: false,
      source: "user",
      dir: "",
      path: "",
      unavailable: "why",
    },
  ]);
});

Deno.test("the child's catalog: a carried skill loads its text with no folder made readable; an unavailable one says why", async () => {
  const skills = skillsOfJob([
    { name: "notes", description: "n", userOnly: false, text: "Use $ARGUMENTS." },
    { name: "gone", description: "g", userOnly: false, unavailable: "It did not travel." },
    { name: "deploy", description: "d", userOnly: false, folder: "deploy" },
  ], { workspaceRoot: "/nonexistent-checkout" });
  const catalog = childCatalog({ skills }, realFs());
  assert.deepEqual(catalog.folders?.(), ["/nonexistent-checkout/.claude/skills/deploy"]);
  assert.deepEqual(await catalog.load("notes", "tabs"), { text: `${CARRIED_SKILL_NOTE}\n\nUse tabs.\n` });
  assert.equal(await catalog.load("gone", ""), "It did not travel.");
  assert.equal(
    await catalog.load("deploy", ""),
    "Cannot read the skill deploy (/nonexistent-checkout/.claude/skills/deploy/SKILL.md).",
  );
});

const ID = "agent-skills1";
const record = sidecarFixture(ID, { isolation: "remote", background: true });
const spec: ChildSpec = childSpecFixture(record, {
  workspaceRoot: "/parent/work",
  trusted: true,
  depth: 1,
  lineage: { rootAgentId: ID, resumeDepth: 0 },
  context: { listing: "the parent's listing", skills: [] },
});
const notes: JobSkill = { name: "notes", description: "The notes one", userOnly: false, text: "body" };

Deno.test("specOfJob: the worker's child lists the job's skills as a local child's listing does", () => {
  const got = specOfJob(jobOf(spec, { skills: [notes, { ...notes, name: "hidden", userOnly: true }] }), {
    record,
    place: { workspaceRoot: "/worker/repo", auditEnv: {} },
  });
  assert.match(got.context?.listing ?? "", /^<system-reminder>\n.*\n\n- notes: The notes one\n\n/);
  assert.doesNotMatch(got.context?.listing ?? "", /hidden/);
  assert.deepEqual(got.context?.skills.map((s) => s.name), ["notes", "hidden"]);
  assert.equal(got.context?.memory, undefined);
});

const withSkills = (skills: unknown) =>
  JSON.stringify({ ...jobOf(spec), grant: { ...jobOf(spec).grant, skills } });
const refusals: [string, unknown, RegExp | null][] = [
  ["carried skills", [notes], null],
  ["a folder that leaves .claude/skills", [{ ...notes, text: undefined, folder: "../../etc" }], /folder/],
  ["a folder of '..'", [{ ...notes, text: undefined, folder: ".." }], /folder/],
  ["both a folder and text", [{ ...notes, folder: "notes" }], /not exactly one of folder, text, unavailable/],
  ["neither", [{ ...notes, text: undefined }], /not exactly one/],
  ["an invalid name", [{ ...notes, name: "../x" }], /name/],
  [
    "texts over the limit together",
    [{ ...notes, text: "x".repeat(MAX_CARRIED_SKILL_BYTES) }, { ...notes, name: "more", text: "x" }],
    /exceed 262144 bytes/,
  ],
  ["too many skills", Array.from({ length: 201 }, (_, i) => ({ ...notes, name: `s${i}` })), /more than 200/],
];
for (const [name, skills, refusal] of refusals) {
  Deno.test(`parseJob skills: ${name}`, () => {
    const got = parseJob(withSkills(skills));
    if (refusal === null) assert.ok("job" in got, JSON.stringify(got));
    else assert.match("invalid" in got ? got.invalid : "accepted", refusal);
  });
}

Deno.test("isSkillFolder: one path segment", () => {
  assert.deepEqual(
    ["deploy", "a.b", ".", "..", "a/b", "a\\b", ""].map(isSkillFolder),
    [true, true, false, false, false, false, false],
  );
});
