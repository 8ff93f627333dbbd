// reportError: a BladeError or a write the machine refused is one line plus a hint, also when it comes
// wrapped in a SuppressedError (an `await using` disposal that failed as well); anything else is a bug
// and keeps its stack.

import assert from "node:assert/strict";
import { captureIo } from "./io.ts";
import { FailedDuringSession, reportError } from "./report_error.ts";
import { osError } from "../testing/fault_fs.ts";
import { BladeError } from "../errors.ts";

const FULL = "/srv/blade/projects/p/session-x.jsonl";

Deno.test("reportError: a full disk is one line naming the file, with a hint, exit 1", () => {
  const io = captureIo();
  assert.equal(reportError(io, osError("ENOSPC", FULL)), 1);
  assert.equal(
    io.stderr(),
    `blade: Could not write ${FULL}: the disk is full (ENOSPC).\n` +
      "  hint: Free space on that disk (or set BLADE_STORAGE_ROOT to a folder on another one) and run again.\n",
  );
});

Deno.test("reportError: under a SuppressedError the first failure is reported; a bug inside stays a bug", () => {
  const disposal = new Error("release failed too");
  const io = captureIo();
  assert.equal(reportError(io, new SuppressedError(disposal, osError("EROFS", FULL))), 1);
  assert.match(
    io.stderr(),
    /^blade: Could not write \S+: it is on a read-only file system \(EROFS\)\.\n {2}hint: /,
  );
  const bug = captureIo();
  assert.equal(reportError(bug, new SuppressedError(disposal, new TypeError("x is undefined"))), 1);
  assert.match(
    bug.stderr(),
    /^blade: internal error \(this is a bug in Blade, please report it\):\nSuppressedError/,
  );
});

Deno.test("reportError: with --output-format json a storage failure is the result object's error", () => {
  const io = captureIo();
  assert.equal(reportError(io, osError("EACCES", FULL), { format: "result" }), 1);
  const out = JSON.parse(io.stdout()) as { is_error: boolean; error: { code: string; message: string } };
  assert.equal(out.is_error, true);
  assert.equal(out.error.code, "storage_write_failed");
  assert.equal(out.error.message, `Could not write ${FULL}: permission denied (EACCES).`);
});

Deno.test("reportError: a message quoting a file or model output reaches the terminal without escapes", () => {
  // deno-lint-ignore no-control-regex
  const rawControl = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
  const hostile = "bad \x1b]0;pwned\x07value\x1b[2J\x9b1A";
  const error = new BladeError("config_invalid", `config.json: ${hostile}`, { hint: `Fix ${hostile}` });
  const text = captureIo();
  assert.equal(reportError(text, error, { echoToStdout: true }), 1);
  assert.equal(text.stderr(), "blade: config.json: bad value\n  hint: Fix bad value\n");
  assert.equal(text.stdout(), "Error: config.json: bad value\n");
  for (const format of ["json", "result"] as const) {
    const io = captureIo();
    reportError(io, error, { format });
    assert.doesNotMatch(io.stdout(), rawControl);
    assert.ok(io.stdout().includes("\\u001b]0;pwned") && io.stdout().includes("\\u009b1A"), io.stdout());
    assert.ok(io.stdout().includes("config_invalid"));
  }
});

Deno.test("reportError: a failure after the session opened names it in the result; a bug inside stays a bug", () => {
  const io = captureIo();
  const failed = new FailedDuringSession("session-abc", osError("ENOSPC", FULL));
  assert.equal(reportError(io, failed, { format: "result" }), 1);
  const out = JSON.parse(io.stdout()) as { session_id: string | null; error: { code: string } };
  assert.equal(out.session_id, "session-abc");
  assert.equal(out.error.code, "storage_write_failed");
  const before = captureIo();
  reportError(before, osError("ENOSPC", FULL), { format: "result" });
  assert.equal((JSON.parse(before.stdout()) as { session_id: unknown }).session_id, null);
  const bug = captureIo();
  assert.equal(reportError(bug, new FailedDuringSession("session-abc", new TypeError("x is undefined"))), 1);
  assert.match(
    bug.stderr(),
    /^blade: internal error \(this is a bug in Blade, please report it\):\nTypeError/,
  );
});
