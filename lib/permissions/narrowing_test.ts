import assert from "node:assert/strict";
import { narrowedRefusal, narrowingOf } from "./narrowing.ts";
import { loadBashParser } from "../shell/bash_parser.ts";

const scope = { workspaceRoot: "/ws" };
const call = (tool: string, input: Record<string, unknown> = {}, path?: string) => ({
  tool,
  input,
  ...(path === undefined ? {} : { path }),
});

Deno.test("narrowedRefusal: every active list must allow the call; lists only narrow", async () => {
  // Bash rules read the command's bash parse; the tool runner loads it before any gate.
  await loadBashParser();
  const review = narrowingOf("/review", ["Read", "Bash(git diff:*)", "Edit(src/**)"]);
  const skill = narrowingOf("the skill s", ["Read", "Bash"]);
  const table: [string, ReturnType<typeof call>, readonly (typeof review)[], string | undefined][] = [
    ["nothing active", call("Write"), [], undefined],
    ["named tool", call("Read"), [review], undefined],
    ["unnamed tool", call("Write"), [review], "/review"],
    ["matching Bash", call("Bash", { command: "git diff HEAD" }), [review], undefined],
    ["other Bash", call("Bash", { command: "rm -rf /" }), [review], "/review"],
    ["Bash chain with one unmatched", call("Bash", { command: "git diff && rm x" }), [review], "/review"],
    ["path inside", call("Edit", {}, "/ws/src/a.ts"), [review], undefined],
    ["path outside", call("Edit", {}, "/ws/lib/a.ts"), [review], "/review"],
    ["second list cannot widen", call("Bash", { command: "ls" }), [review, skill], "/review"],
    ["second list narrows", call("Edit", {}, "/ws/src/a.ts"), [review, skill], "the skill s"],
    ["structured answer passes", call("StructuredOutput"), [review], undefined],
    ["empty list refuses all", call("Read"), [narrowingOf("/x", [])], "/x"],
  ];
  for (const [name, target, active, who] of table) {
    const refusal = narrowedRefusal(active, target, scope);
    if (who === undefined) assert.equal(refusal, undefined, name);
    else {assert.match(
        refusal ?? "",
        new RegExp(`^${target.tool} is refused: ${who.replace("/", "\\/")} allows only`),
        name,
      );}
  }
});
