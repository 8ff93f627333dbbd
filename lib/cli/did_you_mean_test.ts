import assert from "node:assert/strict";
import { editDistance, nearestWord } from "./did_you_mean.ts";

const COMMANDS = ["agents", "tasks", "trust", "mcp", "run", "demo"];

Deno.test("editDistance: inserts, deletes, substitutions and a swap of neighbours each cost one", () => {
  const cases: [string, string, number][] = [
    ["", "", 0],
    ["tasks", "tasks", 0],
    ["tsaks", "tasks", 1],
    ["task", "tasks", 1],
    ["taskss", "tasks", 1],
    ["tasku", "tasks", 1],
    ["agnets", "agents", 1],
    ["test", "trust", 2],
    ["hello", "help", 2],
    ["abc", "", 3],
  ];
  for (const [a, b, want] of cases) assert.equal(editDistance(a, b), want, `${a} → ${b}`);
});

Deno.test("nearestWord: a typo within two edits and under half its length names the command", () => {
  const cases: [string, string | undefined][] = [
    ["tsaks", "tasks"],
    ["taks", "tasks"],
    ["agnets", "agents"],
    ["agent", "agents"],
    ["trsut", "trust"],
    ["Tasks", "tasks"],
    ["dmeo", "demo"],
    ["mpc", "mcp"],
    ["rnu", "run"],
    // Not typos: exact names, ordinary words two edits away but no longer than four letters, or too far.
    ["tasks", undefined],
    ["test", undefined],
    ["fix", undefined],
    ["explain", undefined],
    ["refactor", undefined],
  ];
  for (const [word, want] of cases) assert.equal(nearestWord(word, COMMANDS), want, word);
});
