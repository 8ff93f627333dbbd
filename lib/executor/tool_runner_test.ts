import assert from "node:assert/strict";
import { beforeToolCalls } from "./tool_runner.ts";

Deno.test("beforeToolCalls: every check runs in order; the first refusal is the answer", async () => {
  const seen: string[] = [];
  const allow = (name: string) => () => (seen.push(name), { allow: true as const });
  const refuse =
    (name: string) => () => (seen.push(name), { allow: false as const, askable: false, message: name });
  assert.deepEqual(beforeToolCalls(undefined, undefined), {});
  const one = allow("a");
  assert.equal(beforeToolCalls(undefined, one).beforeToolCall, one);
  const request = {} as Parameters<NonNullable<ReturnType<typeof beforeToolCalls>["beforeToolCall"]>>[0];
  assert.deepEqual(await beforeToolCalls(allow("a"), allow("b")).beforeToolCall!(request), { allow: true });
  assert.deepEqual(seen, ["a", "b"]);
  seen.length = 0;
  const both = beforeToolCalls(refuse("narrowing"), allow("hook")).beforeToolCall!;
  assert.deepEqual(await both(request), { allow: false, askable: false, message: "narrowing" });
  assert.deepEqual(seen, ["narrowing"], "a refusal stops there");
});
