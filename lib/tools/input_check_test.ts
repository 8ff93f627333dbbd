import assert from "node:assert/strict";
import { z } from "zod";
import { builtInInput, compileInputSchema } from "./input_check.ts";
import { INPUT_SCHEMAS } from "./input_schemas.gen.ts";
import { BUILT_IN_INPUTS } from "./input_zod.ts";
import { coreTools } from "./registry.ts";
import { taskInput, taskTool } from "./task.ts";
import { taskOutputTool, taskStopTool } from "./task_control.ts";
import type { AnyTool } from "./tool.ts";
import { skillTool } from "./skill.ts";

type Json = Record<string, unknown>;

/** Values around every bound and of every other JSON type, for one property's schema. */
function candidates(p: Json): unknown[] {
  const others = [null, true, false, 0, -1, 1.5, "", "x", [], {}, ["x"], { a: 1 }];
  const around = (n: number | undefined) => n === undefined ? [] : [n - 1, n, n + 1];
  if (Array.isArray(p.enum)) return [...p.enum, "other", String(p.enum[0]).toUpperCase(), ...others];
  switch (p.type) {
    case "string":
      return [
        ...[...around(p.minLength as number), ...around(p.maxLength as number)]
          .filter((n) => n >= 0).map((n) => "a".repeat(n)),
        "text with spaces",
        ...others,
      ];
    case "integer":
    case "number":
      return [
        ...around(p.minimum as number),
        ...around(p.maximum as number),
        2.5,
        2 ** 53,
        -(2 ** 53),
        1e300,
        -0,
        ...others,
      ];
    default:
      return others;
  }
}

/** The smallest valid value of a property (the base input every case changes one property of). */
function validValue(p: Json): unknown {
  if (Array.isArray(p.enum)) return p.enum[0];
  if (p.type === "string") return "a".repeat((p.minLength as number | undefined) ?? 1);
  if (p.type === "integer" || p.type === "number") return (p.minimum as number | undefined) ?? 1;
  if (p.type === "array") return [];
  return true;
}

function casesFor(schema: Json): unknown[] {
  const properties = schema.properties as Record<string, Json>;
  const required = new Set(schema.required as string[]);
  const base: Json = {};
  for (const [k, p] of Object.entries(properties)) if (required.has(k)) base[k] = validValue(p);
  const full: Json = Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, validValue(p)]));
  const cases: unknown[] = [null, "text", 3, [], [base], base, full, { ...full, extra: 1 }, {}];
  for (const [key, p] of Object.entries(properties)) {
    const { [key]: _, ...without } = base;
    cases.push(without);
    for (const value of candidates(p)) cases.push({ ...base, [key]: value }, { ...full, [key]: value });
  }
  // Several problems at once: every property given a wrong type.
  cases.push(Object.fromEntries(Object.keys(properties).map((k) => [k, [k]])));
  return cases;
}

const tools: AnyTool[] = [
  ...coreTools(),
  taskTool({
    agentTypes: () => [],
    plan: () => Promise.resolve(undefined),
    launch: () => Promise.reject(new Error("unused")),
  }),
  taskOutputTool({
    output: () => Promise.reject(new Error("unused")),
    stop: () => Promise.reject(new Error("unused")),
  }),
  taskStopTool({
    output: () => Promise.reject(new Error("unused")),
    stop: () => Promise.reject(new Error("unused")),
  }),
  skillTool({ names: () => [], load: () => Promise.reject(new Error("unused")) }),
  // Monitor is built by lib/run/monitor.ts (above this layer) with the same builtInInput.
  {
    name: "Monitor",
    description: "",
    kind: "execute",
    ...builtInInput("Monitor"),
    run: () => Promise.reject(new Error("unused")),
  },
];

const issuesOf = (
  r: { success: boolean; error?: { issues: readonly { path: PropertyKey[]; message: string }[] } },
) => r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

Deno.test("built-in tools' compiled input checks give zod's result (data, or the issues) on every case", () => {
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, BUILT_IN_INPUTS.map(([n]) => n).sort());
  let compared = 0;
  for (const [name, zodSchema] of BUILT_IN_INPUTS) {
    const tool = tools.find((t) => t.name === name)!;
    assert.deepEqual(tool.inputSchema, INPUT_SCHEMAS[name], name);
    for (const input of casesFor(INPUT_SCHEMAS[name]!)) {
      const want = zodSchema.safeParse(input);
      // Agent runs the model's input with the child id Blade assigned (task_test.ts): its model part here.
      const got = (name === "Agent" ? taskInput.schema : tool.schema).safeParse(input);
      const what = `${name} ${JSON.stringify(input)?.slice(0, 120)}`;
      assert.equal(got.success, want.success, what);
      if (want.success) assert.deepEqual(got.success && got.data, want.data, what);
      else {
        // The same first issue and the same properties at fault (zod may add a length issue to a
        // value of the wrong type, e.g. an array given for a string).
        const [g, w] = [issuesOf(got)!, issuesOf(want)!];
        assert.deepEqual(g[0], w[0], what);
        assert.deepEqual(
          new Set(g.map((i) => i.path.join("."))),
          new Set(w.map((i) => i.path.join("."))),
          what,
        );
      }
      compared++;
    }
  }
  assert.ok(compared > 500, `only ${compared} cases`);
});

Deno.test("Agent's prompt limit keeps its own message", () => {
  const task = tools.find((t) => t.name === "Agent")!;
  const r = task.schema.safeParse({ description: "abc", prompt: "p".repeat(200_001) });
  assert.equal(r.success, false);
  assert.match(issuesOf(r)![0]!.message, /put long material in a file/);
});

Deno.test("compileInputSchema refuses a keyword it does not check (a schema is never checked less strictly)", () => {
  const refuse = (schema: Json, why: RegExp) => assert.throws(() => compileInputSchema(schema), why);
  refuse(
    { type: "object", properties: { a: { type: "string", pattern: "^x" } } },
    /unsupported keyword "pattern"/,
  );
  refuse(
    { type: "object", properties: {}, additionalProperties: false },
    /unsupported keyword "additionalProperties"/,
  );
  refuse({ type: "object", properties: { a: { type: "object" } } }, /unsupported property type "object"/);
  refuse(
    { type: "object", properties: { a: { type: "array", items: { type: "string", pattern: "x" } } } },
    /a list's items: unsupported keyword "pattern"/,
  );
  refuse({ type: "string" }, /type must be "object"/);
  // What a richer zod schema converts to is refused too.
  refuse(z.toJSONSchema(z.object({ a: z.array(z.string().regex(/x/)) })) as Json, /unsupported keyword/);
});
