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

/** A pending delivery of run `runId` (of key `owner`), due at `dueAt`. */
function delivery(runId: string, dueAt: number, owner = 'key_a'): OutboxDelivery {
  const seq = ++deliveries;
  return {
    id: `msg_${runId}_${seq}`,
    runId,
    owner,
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

    it("takes turns between the keys whose deliveries are due, whatever came first, none past a key's share", async () => {
      const outbox = await open();
      // Key A made many deliveries before key B and C made one each.
      const ofA = Array.from({ length: 6 }, (_, index) => delivery(`run_a${index}`, NOW - 100 + index, 'key_a'));
      const [ofB, ofC] = [delivery('run_b', NOW, 'key_b'), delivery('run_c', NOW, 'key_c')];
      for (const one of [...ofA, ofB, ofC]) await outbox.add(one);
      const share = { perOwner: 2, inFlight: new Map([['key_a', 1]]) };
      const first = await outbox.claim(3, NOW, LEASE_MS, share);
      expect(ids(first)).toEqual(ids([ofA[0]!, ofB, ofC]));
      // Key A has 2 in flight now (its share): nothing more of it, however many slots are free.
      const second = await outbox.claim(5, NOW, LEASE_MS, { perOwner: 2, inFlight: new Map([['key_a', 2]]) });
      expect(second).toEqual([]);
      // Its oldest due first, then in turn.
      const third = await outbox.claim(5, NOW, LEASE_MS, { perOwner: 3, inFlight: new Map() });
      expect(ids(third)).toEqual(ids(ofA.slice(1, 4)));
    });

    it('starts each round of turns after the key that went first the round before', async () => {
      const outbox = await open();
      for (const owner of ['key_a', 'key_b', 'key_c']) {
        for (let index = 0; index < 3; index++) await outbox.add(delivery(`run_${owner}${index}`, NOW - 10, owner));
      }
      const share = { perOwner: 10, inFlight: new Map<string, number>() };
      const firsts: string[] = [];
      for (let round = 0; round < 3; round++) {
        const [claimed] = await outbox.claim(1, NOW, LEASE_MS, share);
        firsts.push(claimed!.owner);
      }
      expect(new Set(firsts)).toEqual(new Set(['key_a', 'key_b', 'key_c']));
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
