import assert from "node:assert/strict";
import { parseProcStatStartTime, realProcess } from "../sys/process.ts";
import { parseProcStatState } from "../sys/proc_stat.ts";
import { currentOwner, ownerLiveness } from "./liveness.ts";

const canFingerprint = Deno.build.os === "linux" || Deno.build.os === "darwin";

Deno.test({
  name: "own process is alive with its own identity",
  ignore: !canFingerprint,
  async fn() {
    const process = realProcess();
    const owner = await currentOwner(process);
    assert.equal(owner.processId, Deno.pid);
    assert.ok(owner.processIdentity !== undefined);
    assert.match(owner.processIdentity.fingerprint, /^[0-9a-f]{64}$/);
    assert.equal(await ownerLiveness(process, owner), "alive");
  },
});

Deno.test({
  name: "a reused PID (wrong fingerprint or platform) is dead",
  ignore: !canFingerprint,
  async fn() {
    const process = realProcess();
    const own = await currentOwner(process);
    assert.ok(own.processIdentity !== undefined);
    const wrong = {
      processId: Deno.pid,
      processIdentity: { ...own.processIdentity, fingerprint: "0".repeat(64) },
    };
    assert.equal(await ownerLiveness(process, wrong), "dead");
    const otherPlatform = own.processIdentity.platform === "linux" ? "darwin" : "linux";
    const foreign = {
      processId: Deno.pid,
      processIdentity: { ...own.processIdentity, platform: otherPlatform },
    };
    assert.equal(await ownerLiveness(process, foreign as typeof own), "dead");
  },
});

Deno.test({
  name: "a spawned child is alive while it runs and dead once it has exited",
  ignore: !canFingerprint,
  async fn() {
    const process = realProcess();
    // `cat` runs until its stdin is closed.
    const child = new Deno.Command("cat", { stdin: "piped", stdout: "null", stderr: "null" }).spawn();
    const identity = await process.identity(child.pid);
    assert.ok(identity !== null);
    const owner = { processId: child.pid, processIdentity: identity };
    assert.equal(await ownerLiveness(process, owner), "alive");
    await child.stdin.close();
    await child.status;
    assert.equal(await ownerLiveness(process, owner), "dead");
    assert.equal(await ownerLiveness(process, { processId: child.pid }), "dead");
  },
});

Deno.test("no PID is unknown; a live PID without a fingerprint is unknown", async () => {
  const process = realProcess();
  assert.equal(await ownerLiveness(process, {}), "unknown");
  assert.equal(await ownerLiveness(process, { processId: Deno.pid }), "unknown");
});

Deno.test("parseProcStatStartTime reads field 22 after the last ')'", () => {
  const tail = "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654 20 21 22";
  assert.equal(parseProcStatStartTime(`1234 (deno) ${tail}`), "987654");
  assert.equal(parseProcStatStartTime(`1234 (my (weird) prog) ${tail}`), "987654");
  assert.equal(parseProcStatStartTime(`1234 (a ) b) 5 6) ${tail}`), "987654");
  assert.equal(parseProcStatStartTime(`1234 ()) ${tail}`), "987654");
  assert.equal(parseProcStatStartTime("1234 (deno) S 1 2"), null);
  assert.equal(parseProcStatStartTime("no parenthesis here"), null);
});

Deno.test({
  name: "parseProcStatStartTime matches field 22 of this process's real stat",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // Deno refuses to read /proc/<pid>/ without --allow-all, so read it the way lib/sys does.
    const out = await new Deno.Command("cat", { args: [`/proc/${Deno.pid}/stat`], stdout: "piped" }).output();
    const stat = new TextDecoder().decode(out.stdout);
    const value = parseProcStatStartTime(stat);
    assert.match(value ?? "", /^\d+$/);
    if (!/\(.*[ )].*\)/.test(stat)) assert.equal(value, stat.trim().split(" ")[21]);
  },
});

Deno.test("parseProcStatState reads field 3 of a stat line", () => {
  assert.equal(parseProcStatState("77 (a ) Z b) Z 1 77 77 0"), "Z");
});
