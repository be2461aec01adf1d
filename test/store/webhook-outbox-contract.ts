import { afterEach, describe, expect, it } from 'vitest';
import type { OutboxDelivery, WebhookOutbox } from '../../src/webhooks/webhook-outbox.js';

/** A kind of outbox the contract is run against, as its test file opens it. */
export interface OutboxKind {
  /** True when deliveries outlive the process: outboxes opened in one test then share them. */
  durable: boolean;
  /** Opens an outbox on the current test's data, keeping settled deliveries for `retentionMs`. */
  open(retentionMs: number): Promise<{ outbox: WebhookOutbox; close(): Promise<void> }>;
}

const NOW = 1_700_000_000_000;
const LEASE_MS = 5000;
let deliveries = 0;

/** A pending delivery of run `runId`, due at `dueAt`. */
function delivery(runId: string, dueAt: number): OutboxDelivery {
  const seq = ++deliveries;
  return {
    id: `msg_${runId}_${seq}`,
    runId,
    url: 'https://hooks.example/runs',
    event: 'run.completed',
    seq,
    body: JSON.stringify({ type: 'run.completed', seq }),
    status: 'pending',
    attempts: 0,
    lastStatus: null,
    lastError: null,
    nextAttemptAt: dueAt,
    deliveredAt: null,
  };
}

const ids = (found: OutboxDelivery[]) => found.map((one) => one.id).sort();

/**
 * What every `WebhookOutbox` does (src/webhooks/webhook-outbox.ts, docs/protocol.md §9), driven through the
 * interface with times passed in: deliveries are handed out when due, one attempt at a time under a
 * lease, until one settles them.
 */
export function webhookOutboxContract(name: string, setup: () => OutboxKind): void {
  describe(`${name}, as every WebhookOutbox`, () => {
    const kind = setup();
    const opened: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const close of opened.splice(0)) await close();
    });
    async function open(): Promise<WebhookOutbox> {
      const { outbox, close } = await kind.open(60_000);
      opened.push(close);
      return outbox;
    }

    it('says whether its deliveries outlive the process', async () => {
      expect((await open()).durable).toBe(kind.durable);
    });

    it('hands out the pending deliveries due by now, at most max, and none due later', async () => {
      const outbox = await open();
      const due = [delivery('run_a', NOW - 10), delivery('run_a', NOW), delivery('run_b', NOW - 5)];
      const later = delivery('run_b', NOW + 1000);
      for (const one of [...due, later]) await outbox.add(one);
      const first = await outbox.claim(2, NOW, LEASE_MS);
      expect(first).toHaveLength(2);
      const rest = await outbox.claim(5, NOW, LEASE_MS);
      expect(ids([...first, ...rest])).toEqual(ids(due));
      expect(first[0]).toEqual(due.find((one) => one.id === first[0]!.id));
    });

    it('hands a delivery out again only once its lease has passed without it being settled', async () => {
      const outbox = await open();
      const one = delivery('run_a', NOW);
      await outbox.add(one);
      expect(ids(await outbox.claim(5, NOW, LEASE_MS))).toEqual([one.id]);
      expect(await outbox.claim(5, NOW + LEASE_MS - 1, LEASE_MS)).toEqual([]);
      expect(ids(await outbox.claim(5, NOW + LEASE_MS, LEASE_MS))).toEqual([one.id]);
    });

    it('hands out a delivery settled as pending again at its next attempt, not before', async () => {
      const outbox = await open();
      const one = delivery('run_a', NOW);
      await outbox.add(one);
      const [claimed] = await outbox.claim(1, NOW, LEASE_MS);
      const retry = { ...claimed!, attempts: 1, lastStatus: 503, nextAttemptAt: NOW + 2000 };
      await outbox.settle(retry);
      expect(await outbox.claim(5, NOW + 1999, LEASE_MS)).toEqual([]);
      expect(await outbox.claim(5, NOW + 2000, LEASE_MS)).toEqual([retry]);
    });

    it('never hands out a delivery settled as delivered or failed, and lists each run’s deliveries as settled, oldest first', async () => {
      const outbox = await open();
      const [first, second, other] = [delivery('run_a', NOW), delivery('run_a', NOW), delivery('run_b', NOW)];
      for (const one of [first!, second!, other!]) await outbox.add(one);
      await outbox.claim(5, NOW, LEASE_MS);
      const delivered = { ...first!, status: 'delivered' as const, attempts: 1, lastStatus: 204, deliveredAt: NOW };
      const failed = { ...second!, status: 'failed' as const, attempts: 3, lastError: 'refused', nextAttemptAt: null };
      await outbox.settle(delivered);
      await outbox.settle(failed);
      expect(await outbox.claim(5, NOW + 10 * LEASE_MS, LEASE_MS)).toEqual([other]);
      expect(await outbox.list('run_a')).toEqual([delivered, failed]);
      expect(await outbox.list('run_b')).toEqual([other]);
      expect(await outbox.list('run_none')).toEqual([]);
    });

    it('tells when the earliest pending delivery is due, and nothing once none is pending', async () => {
      const outbox = await open();
      expect(await outbox.nextDue()).toBeUndefined();
      const [soon, later] = [delivery('run_a', NOW + 100), delivery('run_b', NOW + 900)];
      await outbox.add(later);
      await outbox.add(soon);
      expect(await outbox.nextDue()).toBe(NOW + 100);
      await outbox.settle({ ...soon, status: 'delivered', attempts: 1, lastStatus: 200, deliveredAt: NOW });
      expect(await outbox.nextDue()).toBe(NOW + 900);
      await outbox.settle({ ...later, status: 'failed', attempts: 1, lastError: 'gone', nextAttemptAt: null });
      expect(await outbox.nextDue()).toBeUndefined();
    });

    it.runIf(kind.durable)(
      'lets another outbox on the same data deliver what one added, once its lease has passed',
      async () => {
        const [dying, next] = [await open(), await open()];
        const one = delivery('run_a', NOW);
        await dying.add(one);
        expect(ids(await dying.claim(5, NOW, LEASE_MS))).toEqual([one.id]);
        expect(await next.claim(5, NOW + 1, LEASE_MS)).toEqual([]);
        expect(ids(await next.claim(5, NOW + LEASE_MS, LEASE_MS))).toEqual([one.id]);
        expect(await next.list('run_a')).toEqual([one]);
      },
    );
  });
}
