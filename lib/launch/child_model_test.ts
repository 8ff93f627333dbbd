// Table test of which model a child runs on: the call's `model`, CLAUDE_CODE_SUBAGENT_MODEL, the
// definition's, `inherit`, and the availableModels ceiling.

import assert from "node:assert/strict";
import { chooseChildModel, type ModelChoice } from "./child_model.ts";

const base: ModelChoice = {
  definition: "inherit",
  parentModel: "parent-model",
  aliases: { sonnet: "sonnet-id", opus: "opus-id", haiku: "haiku-id" },
};

const cases: [string, Partial<ModelChoice>, { model: string } | RegExp][] = [
  ["nothing chosen: the parent's", {}, { model: "parent-model" }],
  ["the definition's alias", { definition: "opus" }, { model: "opus-id" }],
  ["the definition's id", { definition: "my-model-7" }, { model: "my-model-7" }],
  ["the call's alias beats the definition's", { definition: "opus", requested: "haiku" }, {
    model: "haiku-id",
  }],
  ["the call's inherit beats the definition's", { definition: "opus", requested: "inherit" }, {
    model: "parent-model",
  }],
  ["the call's id", { requested: "claude-x-1" }, { model: "claude-x-1" }],
  ["CLAUDE_CODE_SUBAGENT_MODEL beats the definition", { definition: "opus", subagentModel: "haiku" }, {
    model: "haiku-id",
  }],
  ["the call beats CLAUDE_CODE_SUBAGENT_MODEL", { subagentModel: "haiku", requested: "sonnet" }, {
    model: "sonnet-id",
  }],
  ["allowed by alias", { requested: "haiku", availableModels: ["haiku", "sonnet"] }, { model: "haiku-id" }],
  ["allowed by id", { requested: "haiku", availableModels: ["haiku-id"] }, { model: "haiku-id" }],
  [
    "the call's model outside the ceiling",
    { requested: "opus", availableModels: ["haiku"] },
    /^Cannot run the agent on opus-id \(the call's model "opus"\): it is not in the availableModels setting \(haiku\)/,
  ],
  [
    "the definition's model outside the ceiling",
    { definition: "opus", availableModels: ["haiku"] },
    /on opus-id \(the agent's model "opus"\)/,
  ],
  [
    "CLAUDE_CODE_SUBAGENT_MODEL outside the ceiling",
    { subagentModel: "opus", availableModels: [] },
    /CLAUDE_CODE_SUBAGENT_MODEL "opus".*\(empty\)/,
  ],
  ["inheriting the parent's model is never refused", { availableModels: ["haiku"] }, {
    model: "parent-model",
  }],
];

for (const [name, fields, expected] of cases) {
  Deno.test(`chooseChildModel: ${name}`, () => {
    const got = chooseChildModel({ ...base, ...fields });
    if (expected instanceof RegExp) {
      assert.ok("refusal" in got, JSON.stringify(got));
      assert.match(got.refusal, expected);
    } else assert.deepEqual(got, expected);
  });
}
