import assert from "node:assert/strict";
import { BASH_MUTATION, collectEvidence, type ToolEvidenceInput } from "./evidence.ts";
import { loadBashParser } from "../shell/bash_parser.ts";

await loadBashParser();

const WS = "/w/repo";
const write = (path: string): ToolEvidenceInput => ({
  name: "Write",
  input: { file_path: path },
  result: { isError: false, metadata: { path, modifiedFiles: [path] } },
});
const bash = (command: string, ok = true): ToolEvidenceInput => ({
  name: "Bash",
  input: { command },
  result: { isError: !ok, metadata: { exitCode: ok ? 0 : 1 } },
});

Deno.test("modified files are normalised to the workspace; outside paths stay absolute", () => {
  const e = collectEvidence([write("/w/repo/src/a.ts"), write("/w/repo/src/a.ts"), write("/tmp/x")], WS);
  assert.deepEqual(e, { modifiedFiles: ["src/a.ts", "/tmp/x"], verificationCommands: [] });
});

Deno.test("only verification commands that succeeded after the last edit count", () => {
  const e = collectEvidence([
    bash("npm test"),
    write("/w/repo/a.ts"), // clears the earlier npm test
    bash("deno lint"),
    bash("deno test", false), // failed: no evidence
    bash("git status"), // read-only: neither evidence nor an edit
    bash("deno check main.ts"),
    bash("deno lint"),
  ], WS);
  assert.deepEqual(e, { modifiedFiles: ["a.ts"], verificationCommands: ["deno lint", "deno check main.ts"] });
});

Deno.test("a mutating Bash command is <bash-mutation> and clears the verification set", () => {
  const e = collectEvidence([bash("npm test"), bash("sed -i s/a/b/ x.ts"), bash("npm run lint")], WS);
  assert.deepEqual(e, { modifiedFiles: [BASH_MUTATION], verificationCommands: ["npm run lint"] });
  // A refused call (no exit code: it never ran) changes nothing.
  const refused = collectEvidence([{
    name: "Bash",
    input: { command: "rm -rf x" },
    result: { isError: true, metadata: {} },
  }], WS);
  assert.deepEqual(refused, { modifiedFiles: [], verificationCommands: [] });
});

Deno.test("nested Task results propagate their modified files", () => {
  const e = collectEvidence([
    bash("cargo test"),
    {
      name: "Task",
      input: {},
      result: { isError: false, metadata: { modifiedFiles: ["/w/repo/b.rs", BASH_MUTATION] } },
    },
  ], WS);
  assert.deepEqual(e, { modifiedFiles: ["b.rs", BASH_MUTATION], verificationCommands: [] });
});
