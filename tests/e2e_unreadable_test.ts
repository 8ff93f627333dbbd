// End-to-end: Glob and Grep on folders Blade may not read (`chmod 000`). Only a missing path is
// "does not exist"; a folder or file that cannot be read is a clear tool error when it is the path
// asked for, and a note naming it when the search met it on the way, never a silent "No files found".
// As root (CI), Blade runs without its power to bypass file permissions (tests/support/blade.ts).

import assert from "node:assert/strict";
import type { ToolResultBlock } from "../lib/protocol/messages.ts";
import {
  bladeSandbox,
  canDropFileOverride,
  parseJsonResult,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

const ignore = !(await canDropFileOverride());

Deno.test({
  name: "e2e: Glob and Grep on a chmod 000 folder say it cannot be read; a search through it names it",
  ignore,
  async fn() {
    await using sandbox = await bladeSandbox();
    await sandbox.write("open/hello.txt", "hello world\n");
    await sandbox.write("locked/secret.txt", "hello secret\n");
    const locked = `${sandbox.workspace}/locked`;
    await Deno.chmod(locked, 0o000);
    try {
      const calls = [
        { name: "Grep", input: { pattern: "hello", path: "locked" } },
        { name: "Glob", input: { pattern: "**/*.txt", path: "locked" } },
        { name: "Grep", input: { pattern: "hello", path: "locked/secret.txt" } },
        { name: "Grep", input: { pattern: "hello" } },
        { name: "Glob", input: { pattern: "**/*.txt" } },
      ];
      const script = `${sandbox.root}/script.json`;
      await Deno.writeTextFile(
        script,
        JSON.stringify({ agents: { main: [{ turns: [{ tool_calls: calls }, { text: "done" }] }] } }),
      );
      const run = await sandbox.run(
        ["-p", "Search", "--provider", "scripted", "--script", script, "--output-format", "json"],
        { withoutFileOverride: true },
      );
      assert.equal(run.code, 0, run.stderr);
      const events = await transcriptEvents(transcriptPath(sandbox, String(parseJsonResult(run).session_id)));
      const results = events.flatMap((e) =>
        e.type === "part_created" && e.data.part.type === "tool_result"
          ? [e.data.part as ToolResultBlock]
          : []
      );
      assert.equal(results.length, calls.length);
      const [grepLocked, globLocked, grepInside, grepAll, globAll] = results as [
        ToolResultBlock,
        ToolResultBlock,
        ToolResultBlock,
        ToolResultBlock,
        ToolResultBlock,
      ];
      for (const r of [grepLocked, globLocked]) {
        assert.equal(r.isError, true, r.content);
        assert.match(r.content, new RegExp(`Cannot read ${locked}: Permission denied`), r.content);
      }
      assert.equal(grepInside.isError, true, grepInside.content);
      assert.match(grepInside.content, new RegExp(`Cannot read ${locked}/secret.txt: Permission denied`));
      assert.doesNotMatch(grepInside.content, /does not exist/);
      // A search that meets the folder keeps what it found and names what it could not read.
      for (const r of [grepAll, globAll]) {
        assert.equal(r.isError, false, r.content);
        assert.match(r.content, /open\/hello\.txt/);
        assert.match(
          r.content,
          new RegExp(`\\(Could not read 1 path: ${locked}: Permission denied \\(EACCES\\)\\.\\)`),
        );
      }
    } finally {
      await Deno.chmod(locked, 0o700);
    }
  },
});
