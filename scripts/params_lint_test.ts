// Tests of the parameter rule (params_lint.ts): two positional parameters plus an options object,
// callbacks left alone, exceptions marked where declared, and the shrinking allowlist.

import assert from "node:assert/strict";
import { paramsPlugin } from "./params_lint.ts";
import type { ParamsAllow } from "./params_rules.ts";

const ROOT = "/repo/";

function lint(source: string, o: { path?: string; allow?: ParamsAllow[] } = {}): string[] {
  const plugin = paramsPlugin(o.allow ?? [], ROOT);
  return Deno.lint.runPlugin(plugin, ROOT + (o.path ?? "lib/a/x.ts"), source).map((d) => d.message);
}

Deno.test("two positional parameters and an options object pass; a fourth or a positional third fail", () => {
  const ok = [
    "export function a(x: string, y: number): void {}",
    "export function b(x: string, y: number, o: { z?: string } = {}): void {}",
    "export function c(x: string, y: number, o?: RunOptions): void {}",
    "export function d(x: string, y: number, { z }: RunOptions): void {}",
    "export function e(x: string, y: number, signal: AbortSignal): void {}",
    "const f = (x: string, y: number, o: Options | undefined) => {};",
  ];
  for (const source of ok) assert.deepEqual(lint(source), [], source);
  assert.deepEqual(lint("export function g(a: string, b: string, c: string, d: string): void {}"), [
    "function g takes 4 parameters: at most 2 plus an options object",
  ]);
  assert.deepEqual(lint("export function h(a: string, b: string, c: number): void {}"), [
    "function h takes its third parameter is not an options object: at most 2 positional parameters",
  ]);
  assert.deepEqual(lint("class K { #m(a: string, b: string, c?: string[]): void {} }"), [
    "function K.#m takes its third parameter is not an options object: at most 2 positional parameters",
  ]);
});

Deno.test("callbacks typed by their caller, tests and code outside lib/ are left alone", () => {
  const callback = "export const s = [1].reduce((sum, x, i) => sum + x + i, 0);";
  assert.deepEqual(lint(callback), []);
  const wide = "export function w(a: string, b: string, c: string, d: string): void {}";
  assert.deepEqual(lint(wide, { path: "lib/a/x_test.ts" }), []);
  assert.deepEqual(lint(wide, { path: "scripts/x.ts" }), []);
});

Deno.test("the finding says how to mark an exception where the function is declared", () => {
  // `deno lint` itself honours the directive (a runPlugin call does not apply directives).
  const plugin = paramsPlugin([], ROOT);
  const [d] = Deno.lint.runPlugin(
    plugin,
    ROOT + "lib/a/x.ts",
    "function f(a: string, b: string, c: string) {}",
  );
  assert.match(d!.hint ?? "", /\/\/ deno-lint-ignore blade-style\/max-params -- <why>/);
});

Deno.test("the allowlist tolerates what it names; an entry that matches nothing is stale", () => {
  const source = "export function old(a: string, b: string, c: string, d: string): void {}";
  assert.deepEqual(lint(source, { allow: [{ path: "lib/a/x.ts", function: "old" }] }), []);
  assert.deepEqual(
    lint("export function old(a: string): void {}", { allow: [{ path: "lib/a/x.ts", function: "old" }] }),
    [
      "stale parameter allowlist entry: function old in lib/a/x.ts now fits (or is gone)",
    ],
  );
});
