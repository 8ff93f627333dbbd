// Owns the background runs of this process (docs/reference/task-tool.md, docs/reference/background.md): which children run, for which owner, how
// to wait for or cancel them, and each owner's PendingWork — completion notices taken from the
// owner's durable inbox and delivered exactly once as hidden messages with their receipts.
// Launching a child and building its notice live in subagents.ts and notice.ts; record projections
// in projections.ts.

import type { Ports } from "../sys/mod.ts";
import type { SidecarOwner, SidecarStore } from "../store/store.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { Delivery, PendingWork } from "../protocol/delivery.ts";
import { Inbox, type InboxEntry, type SessionInbox } from "../session/inbox.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { describeError } from "../errors.ts";
import { noticeFacts } from "./notice.ts";
import { subtaskRef } from "./projections.ts";
import { isOwnedBy } from "../store/record_ops.ts";
import { endsWithin } from "./ends_within.ts";

interface RunEntry {
  id: string;
  owner: SidecarOwner;
  controller: AbortController;
  done: Promise<void>;
  running: boolean;
}

/** A background Task call: which parent call started which child. */
export interface BackgroundCall {
  agentId: string;
  callId: string;
  owner: SidecarOwner;
}

function ownerKey(o: SidecarOwner): string {
  return `${o.parentSessionId}\0${o.parentProjectPath}`;
}

const sameOwner = isOwnedBy;

/** The callId of a delivered run no Task call of the session started (it was started from the shell). */
export const OUTSIDE_CALL_PREFIX = "outside:";

/**
 * How often a background run's sidecar is read for a cancel from another process (`blade tasks
 * cancel`): one small file read per run; the figure bounds the time from the cancel to the stop.
 */
export const CANCEL_POLL_MS = 200;

export class BackgroundRuns {
  #ports: Ports;
  #store: SidecarStore;
  #layout: StorageLayout;
  #runs = new Map<string, RunEntry>();
  #calls = new Map<string, BackgroundCall>();
  #waiters = new Map<string, Set<() => void>>();
  #changed = new Set<string>();
  /** Inbox ids delivered to a session of this process (a remote child's wait ends on them too). */
  #delivered = new Set<string>();
  #inboxes: ((owner: SidecarOwner) => SessionInbox) | undefined;

  /** `inboxes`: where sessions' inboxes are kept (the shared store's); default: files of `layout`. */
  constructor(
    deps: {
      ports: Ports;
      store: SidecarStore;
      layout: StorageLayout;
      inboxes?: (owner: SidecarOwner) => SessionInbox;
    },
  ) {
    this.#ports = deps.ports;
    this.#store = deps.store;
    this.#layout = deps.layout;
    this.#inboxes = deps.inboxes;
  }

  /** Whether a session of this process was handed the inbox entry `inboxId`. */
  delivered(inboxId: string): boolean {
    return this.#delivered.has(inboxId);
  }

  inboxFor(owner: SidecarOwner): SessionInbox {
    if (this.#inboxes !== undefined) return this.#inboxes(owner);
    return new Inbox({
      fs: this.#ports.fs,
      clock: this.#ports.clock,
      path: this.#layout.inboxPath(owner.parentProjectPath, owner.parentSessionId),
    });
  }

  /** Registers a running child; `work` runs it to its end (it must not throw). */
  start(call: BackgroundCall, work: (signal: AbortSignal) => Promise<void>): void {
    const controller = new AbortController();
    this.#calls.set(call.agentId, call);
    const entry: RunEntry = {
      id: call.agentId,
      owner: call.owner,
      controller,
      done: Promise.resolve(),
      running: true,
    };
    this.#runs.set(call.agentId, entry);
    const stopWatch = new AbortController();
    entry.done = work(controller.signal).catch(() => {}).finally(() => {
      entry.running = false;
      stopWatch.abort();
      this.notify(call.owner);
    });
    void this.#watch(call.agentId, controller, stopWatch.signal);
  }

  /**
   * `blade tasks cancel` from another process marks the sidecar cancelled; the process running the
   * child notices within CANCEL_POLL_MS and stops it (its processes are killed through the abort
   * signal), so a process whose last child that was exits well within a second of the cancel.
   */
  async #watch(id: string, run: AbortController, stop: AbortSignal): Promise<void> {
    while (await this.#nextPoll(stop)) {
      const loaded = await this.#store.load(id).catch(() => null);
      if (loaded !== null && "record" in loaded && loaded.record.status !== "running") {
        run.abort(new Error("cancelled from outside"));
        return;
      }
    }
  }

  /**
   * True after CANCEL_POLL_MS, false once `stop` aborts. A watchdog over the run (clock.timer), not a
   * wait of its own: it never keeps the process alive (the child does), and it is not the global
   * setTimeout, whose first use in a thread costs ~7 ms (lib/sys/clock.ts): a background child's
   * start would pay it.
   */
  #nextPoll(stop: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (stop.aborted) return resolve(false);
      const onStop = () => {
        cancel();
        resolve(false);
      };
      const cancel = this.#ports.clock.timer(CANCEL_POLL_MS, () => {
        stop.removeEventListener("abort", onStop);
        resolve(true);
      });
      stop.addEventListener("abort", onStop, { once: true });
    });
  }

  /** The background call that started `agentId`, when known to this process. */
  callOf(agentId: string): BackgroundCall | undefined {
    return this.#calls.get(agentId);
  }

  /** Adds a call known from a transcript (after a restart) so its notice can still be delivered. */
  rememberCall(call: BackgroundCall): void {
    if (!this.#calls.has(call.agentId)) this.#calls.set(call.agentId, call);
  }

  isRunning(id: string): boolean {
    return this.#runs.get(id)?.running === true;
  }

  running(owner: SidecarOwner): string[] {
    return [...this.#runs.values()].filter((r) => r.running && sameOwner(r.owner, owner)).map((r) => r.id);
  }

  /** Waits for a run of this process to end; false on timeout (0 = no limit) or abort. */
  async wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const entry = this.#runs.get(id);
    if (entry === undefined || !entry.running) return true;
    return await endsWithin(entry.done, {
      clock: this.#ports.clock,
      timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
  }

  /** Aborts a run of this process; the run itself records `cancelled`. */
  abort(id: string, reason: string): boolean {
    const entry = this.#runs.get(id);
    if (entry === undefined || !entry.running) return false;
    entry.controller.abort(new Error(reason));
    return true;
  }

  /** Wakes this owner's waiters: a completion was enqueued or a run ended. */
  notify(owner: SidecarOwner): void {
    const key = ownerKey(owner);
    this.#changed.add(key);
    const waiters = this.#waiters.get(key);
    this.#waiters.delete(key);
    for (const w of waiters ?? []) w();
  }

  /** Waits for every run of this process (used before exit and in tests). */
  async settleAll(): Promise<void> {
    await Promise.all([...this.#runs.values()].map((r) => r.done));
  }

  /** A finished run's record for its notice, or why it cannot be read (gone, corrupt, too large). */
  async #loadForNotice(id: string): Promise<{ record: SidecarRecord } | { unreadable: string }> {
    try {
      const loaded = await this.#store.load(id);
      if (loaded === null) return { unreadable: "its record is gone (removed by `blade tasks clean`?)" };
      if (!("record" in loaded)) {
        return { unreadable: `its record is unreadable (${loaded.diagnostic.message})` };
      }
      return { record: loaded.record };
    } catch (e) {
      return { unreadable: `its record could not be read (${describeError(e)})` };
    }
  }

  pendingFor(owner: SidecarOwner, delivered: Set<string>): PendingWork {
    const key = ownerKey(owner);
    const inbox = this.inboxFor(owner);
    return {
      running: () => this.running(owner),
      takeDeliveries: async () => {
        this.#changed.delete(key);
        const out: Delivery[] = [];
        for (const entry of await inbox.pending()) {
          if (entry.kind !== "completion" || delivered.has(entry.inboxId) || entry.agentId === undefined) {
            continue;
          }
          // Only a background run of this owner qualifies (never a foreground call): one of its
          // background Task calls, or — with no call here — a background run its record says is this
          // owner's (`blade tasks resume --background` of one of its children, started from the shell).
          const call = this.#calls.get(entry.agentId);
          if (call !== undefined && !sameOwner(call.owner, owner)) continue;
          const loaded = await this.#loadForNotice(entry.agentId);
          if (!("record" in loaded)) {
            // A notice for a run this session never started (no call for it, in this process or its
            // transcript) is not proof of anything: without a record to show the owner it stays unread.
            if (call === undefined) continue;
            // Never skipped: the notice itself is what is left of the run (docs/reference/background.md).
            delivered.add(entry.inboxId);
            out.push(unreadDelivery({ ...entry, agentId: entry.agentId }, {
              callId: call.callId,
              unreadable: loaded.unreadable,
            }));
            continue;
          }
          const record = loaded.record;
          if (record.status === "running" || !record.background) continue;
          if (call === undefined && !sameOwner(record, owner)) continue;
          delivered.add(entry.inboxId);
          this.#delivered.add(entry.inboxId);
          out.push({
            inboxId: entry.inboxId,
            message: { role: "user", content: [{ type: "text", text: entry.text }], hidden: true },
            parts: [subtaskRef(call?.callId ?? `${OUTSIDE_CALL_PREFIX}${record.id}`, record, record.status)],
          });
        }
        return out;
      },
      acknowledged: (ids) => inbox.remove(ids),
      waitForChange: (signal) => {
        if (this.#changed.has(key) || signal.aborted) return Promise.resolve();
        return new Promise<void>((resolve) => {
          const set = this.#waiters.get(key) ?? new Set();
          set.add(resolve);
          this.#waiters.set(key, set);
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
      },
      cancelAll: (reason) => {
        const ids = this.running(owner);
        for (const id of ids) this.abort(id, reason);
        return Promise.all(ids.map((id) => this.#runs.get(id)?.done)).then(() => ids);
      },
    };
  }
}

/**
 * The delivery of a notice whose run's record cannot be read: the notice's own text, which carries the
 * capped result, with what could not be read, and a receipt built from what the notice says.
 */
function unreadDelivery(
  entry: InboxEntry & { agentId: string },
  o: { callId: string; unreadable: string },
): Delivery {
  const facts = noticeFacts(entry.text, entry.agentId);
  const note =
    `Blade could not read the record of background subagent "${entry.agentId}": ${o.unreadable}. ` +
    "The notice above is all that is left of its result; TaskOutput cannot return more.";
  return {
    inboxId: entry.inboxId,
    message: {
      role: "user",
      content: [{ type: "text", text: `${entry.text}\n\n${note}` }],
      hidden: true,
    },
    parts: [{
      type: "subtask_ref",
      callId: o.callId,
      agentId: entry.agentId,
      subagentType: facts?.subagentType ?? "unknown",
      description: facts?.description ?? "",
      background: true,
      state: facts?.status ?? "failed",
      lineage: facts?.lineage ?? { rootAgentId: entry.agentId, resumeDepth: 0 },
    }],
  };
}
