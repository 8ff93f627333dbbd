// Owns the remote children's work queue over JetStream (docs/guides/remote.md): a work-queue stream and
// the one durable consumer every worker shares, so each job goes to one taker at a time, again after
// its ack wait without a sign of life. nats_link.ts opens it on its connection.

// Types only (erased): the client's code is imported by nats_link.ts on first connect.
import type { AckPolicy, JetStreamClient, JetStreamManager, RetentionPolicy } from "@nats-io/jetstream";
import { ensureStream, exists, opening, openOrCreate, type Patience, retried, within } from "./nats_retry.ts";

/** One job taken from a work queue: unacknowledged until `ack`; redelivered if never acknowledged. */
export interface QueuedJob {
  text: string;
  /** 1 on the first delivery, 2 on the first redelivery, … */
  deliveries: number;
  /** The job is still being worked on: its acknowledgement wait starts over. */
  working(): void;
  /** Done: the servers drop the job (resolves once they confirmed it). */
  ack(): Promise<void>;
  /** Not now: delivered again (to any worker) after `delayMs`. */
  nak(delayMs: number): void;
}

/** A work queue: each job goes to one taker at a time, again after `ackWaitMs` without an ack. */
export interface JobQueue {
  /** Publishes a job; a repeat of `msgId` within the duplicate window is dropped by the servers. */
  publish(text: string, msgId: string): Promise<{ duplicate: boolean }>;
  /** The next job, or null when none came within `waitMs`. */
  next(waitMs: number): Promise<QueuedJob | null>;
  /** Jobs waiting or taken and not acknowledged yet. */
  pending(): Promise<number>;
}

export interface QueueOptions {
  subject: string;
  replicas: number;
  /**
   * How long a taken job may go without `working()` or `ack()` before it is delivered again; set when
   * the first taker of the queue (on any machine) makes its consumer.
   */
  ackWaitMs: number;
}

/** How long past its expiry a pull may stay unsettled before it is given up (nats_retry.ts `within`). */
const PULL_GRACE_MS = 10_000;

/** The durable consumer every worker shares: each job goes to one of them at a time. */
const QUEUE_CONSUMER = "blade_workers";

/** What the queue's calls use: the JetStream client and manager, the client's enums, and its patience. */
interface QueueClient {
  js: JetStreamClient;
  jsm: Promise<JetStreamManager>;
  ack: typeof AckPolicy.Explicit;
  work: typeof RetentionPolicy.Workqueue;
  patience: Patience;
}

type Consumer = Awaited<ReturnType<JetStreamClient["consumers"]["get"]>>;

/**
 * The queue's shared consumer, opened on first use. The consumer is made by the first taker (a
 * publisher never needs it): its ack wait is that taker's. Jobs published before it exists wait in
 * the work-queue stream for it. Only "no such consumer" makes one; any other failure is tried again,
 * and a failed open or pull is forgotten (`forget`: the next call tries afresh) rather than kept,
 * which would leave this taker unable to take a job for good.
 */
function sharedConsumer(
  client: QueueClient & { manager: JetStreamManager },
  o: { name: string; options: QueueOptions },
): { take(): Promise<Consumer>; forget(taken: Promise<Consumer>): void } {
  const { js, manager: jsm } = client;
  const { name, options } = o;
  let consumer: Promise<Consumer> | undefined;
  const forget = (taken: Promise<Consumer>) => {
    if (consumer === taken) consumer = undefined;
  };
  const take = () => {
    if (consumer === undefined) {
      const opened = opening(client.patience, {
        what: `the consumer of the work queue ${name}`,
        open: () =>
          openOrCreate({
            exists: () => exists(() => jsm.consumers.info(name, QUEUE_CONSUMER)),
            open: () => js.consumers.get(name, QUEUE_CONSUMER),
            create: async () => {
              await jsm.consumers.add(name, {
                durable_name: QUEUE_CONSUMER,
                ack_policy: client.ack,
                ack_wait: options.ackWaitMs * 1_000_000,
                max_deliver: -1,
                num_replicas: options.replicas,
              });
              return await js.consumers.get(name, QUEUE_CONSUMER);
            },
          }),
      });
      opened.catch(() => forget(opened));
      consumer = opened;
    }
    return consumer;
  };
  return { take, forget };
}

/** The work queue `name`: a work-queue stream on `options.subject` and its one shared durable consumer. */
export async function openQueue(client: QueueClient, name: string, options: QueueOptions): Promise<JobQueue> {
  const { js } = client;
  const { clock } = client.patience;
  const jsm = await client.jsm;
  await opening(client.patience, {
    what: `the work queue ${name}`,
    open: () =>
      ensureStream(jsm, name, {
        subjects: [options.subject],
        retention: client.work,
        num_replicas: options.replicas,
      }),
  });
  const consumer = sharedConsumer({ ...client, manager: jsm }, { name, options });
  const decoder = new TextDecoder();
  return {
    async publish(text, msgId) {
      const ack = await retried(clock, () => js.publish(options.subject, text, { msgID: msgId }));
      return { duplicate: ack.duplicate };
    },
    async next(waitMs) {
      const expires = Math.max(waitMs, 1000);
      // A pull has no timeout of its own: it ends on the servers' answer or on missed heartbeats, and
      // a pull left waiting (its consumer's leader moved) would stop this taker for good.
      const taken = consumer.take();
      const m = await within(async () => await (await taken).next({ expires }), {
        clock,
        ms: expires + PULL_GRACE_MS,
        what: `a pull from the work queue ${name}`,
      }).catch((error) => {
        // A failed pull forgets the consumer: the next call opens it afresh (makes it again when it
        // is gone). Kept, a consumer deleted from under this taker — or one a cluster without its
        // quorum answered for but never served — failed every later pull ("heartbeats missed").
        consumer.forget(taken);
        throw error;
      });
      if (m === null) return null;
      return {
        text: decoder.decode(m.data),
        deliveries: m.info.deliveryCount,
        working: () => m.working(),
        // Tried again when the answer is lost (the consumer's leader moving): an ack is idempotent.
        ack: () => retried(clock, async () => void await m.ackAck()),
        nak: (delayMs) => m.nak(delayMs),
      };
    },
    pending: async () => {
      const info = await jsm.streams.info(name);
      return info.state.messages;
    },
  };
}
