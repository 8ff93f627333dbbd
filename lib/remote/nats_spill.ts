// Owns keeping a NATS-stored run record within one message (docs/guides/remote.md, "Large results"): a
// KV value is one NATS message, at most the servers' max_payload (1 MiB by default), so a result, an
// error or a conversation past the NATS caps moves to the JetStream object store `blade_spill` under
// `<id>.spill/<file>` (named by content, lib/store/spill.ts) before the record that names it is
// written, and is read back by `readSpilled` for whoever needs it whole (tasks output, TaskOutput, a
// resume). Spilled text is redacted like the record (secrets never reach the servers). A record still
// too large after that (a huge prompt) is refused with an error saying so, never sent to fail obscurely.

import { BladeError } from "../errors.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { planSpill, type SpillCaps, spillOf, withSpilled } from "../store/spill.ts";
import type { ObjectBucket } from "./nats_link.ts";

/** The object store spilled values go to. */
export const SPILL_STORE = "blade_spill";
/** What a NATS record keeps inline: results and errors to 128 Ki characters, a conversation to 256 Ki. */
export const NATS_SPILL_CAPS: SpillCaps = { textChars: 131_072, messagesChars: 262_144 };
/** The largest record text written (bytes): nats-server's default max_payload less room for headers. */
export const NATS_RECORD_BYTES = 1024 * 1024 - 8 * 1024;

const objectName = (id: string, file: string) => `${id}.spill/${file}`;

/** Spills and reads back the large values of records kept in a NATS bucket. */
export class NatsSpill {
  #objects: () => Promise<ObjectBucket>;
  #redact: (text: string) => string;

  constructor(
    objects: () => Promise<ObjectBucket>,
    o: { redact?: ((text: string) => string) | undefined } = {},
  ) {
    this.#objects = objects;
    this.#redact = o.redact ?? ((t) => t);
  }

  /** The record as it is to be stored: its large values written to the object store first. */
  async stored(record: SidecarRecord): Promise<SidecarRecord> {
    const plan = await planSpill(record, NATS_SPILL_CAPS);
    if (plan.files.length === 0) return plan.record;
    const objects = await this.#objects();
    const encoder = new TextEncoder();
    for (const f of plan.files) {
      await objects.put(objectName(record.id, f.name), encoder.encode(this.#redact(f.text)));
    }
    return plan.record;
  }

  /** The record with its spilled values read back whole. */
  async read(record: SidecarRecord): Promise<SidecarRecord> {
    if (spillOf(record) === undefined) return record;
    const objects = await this.#objects();
    return await withSpilled(record, async (id, file) => {
      const bytes = await objects.get(objectName(id, file));
      if (bytes === null) {
        throw new BladeError(
          "store_unavailable",
          `The spilled value ${
            objectName(id, file)
          } of run ${id} is missing from the NATS object store ${SPILL_STORE}`,
          { hint: "It may have been removed by hand or by a retention policy; the record keeps its head." },
        );
      }
      return new TextDecoder().decode(bytes);
    });
  }

  /** Removes what a removed record spilled; best effort. */
  async forget(record: SidecarRecord): Promise<void> {
    const refs = Object.values(spillOf(record) ?? {});
    if (refs.length === 0) return;
    const objects = await this.#objects();
    await Promise.all(refs.map((r) => objects.remove(objectName(record.id, r.file)).catch(() => {})));
  }
}

/** Refuses a record text past what one NATS message holds, saying which record and why. */
export function checkRecordSize(id: string, text: string): void {
  const max = NATS_RECORD_BYTES;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes <= max) return;
  throw new BladeError(
    "record_too_large",
    `The run record ${id} is ${bytes} bytes, over the ${max} bytes one NATS message holds, even with its ` +
      `result, error and conversation moved to the object store ${SPILL_STORE}`,
    { hint: "Keep the run's prompt and description smaller, or use the file store (no --store)." },
  );
}
