import assert from "node:assert/strict";
import { parseDocument } from "yaml";
import { BUILTIN_AGENT_FILES } from "./builtin_agents.gen.ts";
import { splitFrontmatter } from "./frontmatter.ts";
import { readSimpleFrontmatter } from "./simple_yaml.ts";

/** Whenever the fast path answers, its answer must be the YAML library's. */
function assertSameAsYaml(text: string): boolean {
  const simple = readSimpleFrontmatter(text, 2);
  if (simple === undefined) return false;
  const doc = parseDocument(text);
  assert.deepEqual(doc.errors.map((e) => e.message), [], `fast path accepted invalid YAML:\n${text}`);
  assert.deepEqual(simple.values, doc.toJS() ?? {}, `fast path differs from YAML:\n${text}`);
  return true;
}

const LINES = [
  "name: reviewer",
  "name: 'it''s'",
  'name: "quoted"',
  'name: "with \\" escape"',
  "description: Reviews diffs, carefully (really).",
  "description: Use when: asked",
  "description: C# and F# code",
  "description: a:b",
  "description: text # comment",
  "description: émoji ✓ — dash",
  "description: -x",
  "description: trailing spaces   ",
  "description: Read,Grep",
  "description: x]",
  "description: it's fine",
  "description: @x",
  "description: %x",
  "description: `x`",
  "description: *alias",
  "description: &anchor value",
  "description: !tag value",
  "description: {a: 1}",
  "description: |",
  "description: >",
  "tools: [Read, Grep]",
  "tools: []",
  "tools: [ ]",
  "tools: [a,]",
  "tools: [Read, Task(Explore, Plan)]",
  "tools: ['Read', \"Grep\"]",
  "tools: [a:b]",
  "tools: [x",
  "tools: [1, 2]",
  "tools:",
  "- Read",
  "  - Grep",
  "  - 'Glob'",
  "    - Bash",
  "  -",
  "- [nested]",
  "maxTurns: 12",
  "maxTurns: 012",
  "maxTurns: 0",
  "maxTurns: 1.5",
  "maxTurns: 1e3",
  "maxTurns: .5",
  "maxTurns: +1",
  "maxTurns: 0x1F",
  "maxTurns: 123456789012345678",
  "background: true",
  "background: True",
  "background: FALSE",
  "background: yes",
  "background: on",
  "color: null",
  "color: Null",
  "color: ~",
  "true: x",
  "null: x",
  "key:value",
  "  indented: x",
  "# a comment",
  "",
  "...",
  "name\tx: y",
];

/** A small deterministic generator (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("the fast path agrees with YAML on every generated frontmatter it accepts", () => {
  const next = random(20261202);
  let accepted = 0;
  for (let i = 0; i < 4000; i++) {
    const count = 1 + Math.floor(next() * 6);
    const text = Array.from({ length: count }, () => LINES[Math.floor(next() * LINES.length)]).join("\n");
    if (assertSameAsYaml(text)) accepted++;
  }
  assert.ok(accepted > 250, `only ${accepted} generated frontmatters took the fast path`);
});

Deno.test("every built-in takes the fast path (start-up never loads the YAML library for them)", () => {
  for (const { file, text } of BUILTIN_AGENT_FILES) {
    const split = splitFrontmatter(text);
    assert.ok(split.ok, file);
    assert.ok(assertSameAsYaml(split.frontmatter.text), `${file} needs the YAML library`);
  }
});

Deno.test("typical Claude Code frontmatter takes the fast path, with key lines", () => {
  const text =
    "name: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob\nmodel: sonnet\ncolor: blue";
  assert.deepEqual(readSimpleFrontmatter(text, 2), {
    values: {
      name: "reviewer",
      description: "Reviews code",
      tools: "Read, Grep, Glob",
      model: "sonnet",
      color: "blue",
    },
    lines: { name: 2, description: 3, tools: 4, model: 5, color: 6 },
  });
});

Deno.test("anything unusual is left to YAML", () => {
  for (const text of ["a: 1\na: 2", "description: x: y", "a: |\n  b", "a: 'x", "\ta: b", "a: [b", "- a"]) {
    assert.equal(readSimpleFrontmatter(text, 2), undefined, text);
  }
});
