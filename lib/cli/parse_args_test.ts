import assert from "node:assert/strict";
import { parseArgs as nodeParseArgs } from "node:util";
import { parseArgs } from "./parse_args.ts";

const OPTIONS = {
  str: { type: "string", short: "s" },
  many: { type: "string", short: "m", multiple: true },
  bool: { type: "boolean", short: "b" },
  c: { type: "boolean" },
  flags: { type: "boolean", short: "f", multiple: true },
  "dashed-name": { type: "string" },
} as const;

const WORDS = [
  "-b",
  "-c",
  "-s",
  "-m",
  "-f",
  "-bc",
  "-bs",
  "-sx",
  "-bsx",
  "-bfs",
  "-s-x",
  "--bool",
  "--str",
  "--str=x",
  "--bool=x",
  "--many",
  "--many=y",
  "--dashed-name",
  "--dashed-name=",
  "--",
  "-",
  "x",
  "-x",
  "--x",
  "--x=1",
  "-z",
  "-bz",
  "--str=",
  "-sc",
  "--c",
  "--__proto__",
  "-",
  "---",
  "--=v",
];

/** Three-word lines use these (every pair of WORDS is tried). */
const CORE = ["-b", "-s", "-m", "-bs", "--str", "--str=x", "--bool=x", "--", "-", "x", "-x", "--many"];

type Outcome = { values: Record<string, unknown>; positionals: string[] } | { error: string; code: unknown };

function outcome(run: () => { values: object; positionals: string[] }): Outcome {
  try {
    const { values, positionals } = run();
    return { values: { ...values }, positionals };
  } catch (e) {
    return { error: (e as Error).message, code: (e as { code?: unknown }).code };
  }
}

Deno.test("parseArgs gives node:util's values, positionals and errors (every pair of words, and triples)", () => {
  const lines: string[][] = [[]];
  for (const a of WORDS) {
    lines.push([a]);
    for (const b of WORDS) {
      lines.push([a, b]);
      if (CORE.includes(a) && CORE.includes(b)) { for (const c of CORE) lines.push([a, b, c]); }
    }
  }
  for (const allowPositionals of [true, false]) {
    for (const args of lines) {
      const ours = outcome(() => parseArgs({ args, options: OPTIONS, allowPositionals, strict: true }));
      const node = outcome(() => nodeParseArgs({ args, options: OPTIONS, allowPositionals, strict: true }));
      assert.deepEqual(ours, node, `${JSON.stringify(args)} (allowPositionals: ${allowPositionals})`);
    }
  }
});
