// Writes fenced by a lease (lib/worker/fenced_store.ts): while held they pass; once lost every write of
// the run's record fails with LeaseLost — also one whose check passed before the lease was lost, when
// its compare-and-set is retried — and records of other runs pass through.

import assert from "node:assert/strict";
import { FakeClock } from "../testing/fakes.ts";
import { MemorySidecarStore } from "../store/memory_store.ts";
import { sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { fencedStore, LeaseLost } from "./fenced_store.ts";

Deno.test("fencedStore: the run's record is written only while the lease is held", async () => {
  const store = new MemorySidecarStore({ clock: new FakeClock(1000) });
  await store.save(sidecarFixture("agent-held"));
  await store.save(sidecarFixture("agent-other"));
  let held = true;
  const fenced = fencedStore(store, { id: "agent-held", held: () => held });
  await fenced.update("agent-held", { description: "while held" });
  held = false;
  await assert.rejects(fenced.update("agent-held", { description: "after" }), LeaseLost);
  await assert.rejects(fenced.update("agent-held", (r) => r), LeaseLost);
  await assert.rejects(
    fenced.markCompleted("agent-held", {
      status: "failed",
      result: { success: false, message: "" },
      completedAt: 2,
    }),
    LeaseLost,
  );
  await assert.rejects(fenced.save(sidecarFixture("agent-held")), LeaseLost);
  await assert.rejects(fenced.remove("agent-held"), LeaseLost);
  await assert.rejects(fenced.updateMany([{ id: "agent-held", change: (r) => r }]), LeaseLost);
  const now = await store.load("agent-held");
  assert.ok(now !== null && "record" in now && now.record.description === "while held");
  // Another run's record is not this lease's business.
  await fenced.update("agent-other", { description: "fine" });
  assert.ok((await fenced.load("agent-held")) !== null);
});

Deno.test("fencedStore: a lease lost between the first check and the write is caught inside the change", async () => {
  const store = new MemorySidecarStore({ clock: new FakeClock(1000) });
  await store.save(sidecarFixture("agent-held"));
  let checks = 0;
  // Held for the check before the write, lost by the time the change runs (a stop in between).
  const fenced = fencedStore(store, { id: "agent-held", held: () => checks++ === 0 });
  await assert.rejects(fenced.update("agent-held", (r) => ({ ...r, description: "late" })), LeaseLost);
  const now = await store.load("agent-held");
  assert.ok(now !== null && "record" in now && now.record.description !== "late");
});
