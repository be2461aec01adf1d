import { describe, expect, it } from 'vitest';
import { OrsError } from '../../src/errors.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import type { Flood } from '../support/flood-writer.js';
import type { OrsFault } from '../support/ors-fault-proxy.js';
import { rejectionOf, startOrsTestRig } from '../support/ors-test-rig.js';
import { type ProxiedOrsBridge, proxiedOrsBridges } from '../support/proxied-ors-bridge.js';

/**
 * A hostile ORS server that answers without end (docs/protocol.md §5.6): the bridge reads at most
 * `RUNBRIDGE_ORS_MAX_ANSWER_BYTES` of any answer, then stops reading, closes the connection and fails
 * with `ors_response_too_large`, which is not retried; the run fails with that code and its session is
 * still deleted.
 */

const CAP = 1024 * 1024;
/** What the hostile server is ready to send: far more than the cap, far less than it would take to hurt. */
const FLOOD_BYTES = 64 * 1024 * 1024;
/** A megabyte of text, the piece each flood repeats. */
const MEGABYTE = 'x'.repeat(1024 * 1024);

const FLOODS: Record<'call' | 'json' | 'error', OrsFault> = {
  call: {
    type: 'flood',
    status: 200,
    contentType: 'text/event-stream',
    flood: {
      head: `event: task_id\ndata: ${'a'.repeat(32)}\n\n`,
      piece: `event: chunk\ndata: ${MEGABYTE}\n\n`,
      bytes: FLOOD_BYTES,
    },
  },
  json: {
    type: 'flood',
    status: 200,
    contentType: 'application/json',
    flood: { head: '[{"type": "text", "text": "', piece: MEGABYTE, tail: '"}]', bytes: FLOOD_BYTES },
  },
  error: {
    type: 'flood',
    status: 500,
    contentType: 'application/json',
    flood: { head: '{"detail": "', piece: MEGABYTE, tail: '"}', bytes: FLOOD_BYTES } satisfies Flood,
  },
};

const startProxied = proxiedOrsBridges();

function startRig(): Promise<ProxiedOrsBridge> {
  return startProxied({ env: { RUNBRIDGE_ORS_MAX_ANSWER_BYTES: String(CAP) } });
}

describe('an ORS server that answers without end', () => {
  it.each([
    ['a tool result', '/arith/call', FLOODS.call],
    ['a prompt', '/arith/prompt', FLOODS.json],
    ['an error body', '/create', FLOODS.error],
  ])('fails the run with ors_response_too_large on %s, once, and deletes the session', async (_what, path, fault) => {
    const rig = await startRig();
    rig.proxy.inject({ path, fault, times: 10 });
    const events = await rig.bridge.readEvents(await rig.bridge.startRun({}));
    assertEventOrder(events);

    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'ors_response_too_large' });
    expect(failed?.event === 'run.failed' && failed.error).toContain(path);
    expect(failed?.event === 'run.failed' && failed.error).toContain('RUNBRIDGE_ORS_MAX_ANSWER_BYTES');
    // Not retried: one flood, whose reader went away long before it was over.
    expect(rig.proxy.requestsTo(path)).toHaveLength(1);
    const [flood] = await rig.proxy.floodsEnded(1);
    expect(flood).toMatchObject({ path, closedEarly: true });
    expect(flood!.written).toBeLessThan(FLOOD_BYTES / 4);
    expect(rig.server.openSessions()).toEqual([]);
    expect(rig.proxy.requestsTo('/delete_session')).toHaveLength(1);
  });
});

describe('the ORS client', () => {
  it('stops reading a discovery answer at its cap and does not retry it, though it is safe to repeat', async () => {
    const rig = await startOrsTestRig({ client: { maxAnswerBytes: CAP } });
    try {
      rig.proxy.inject({ path: '/list_environments', fault: FLOODS.json, times: 10 });
      const error = await rejectionOf(rig.client.listEnvironments());
      expect(error).toBeInstanceOf(OrsError);
      expect(error).toMatchObject({ code: 'ors_response_too_large', details: { limit: CAP } });
      expect(rig.proxy.requestsTo('/list_environments')).toHaveLength(1);
      const [flood] = await rig.proxy.floodsEnded(1);
      expect(flood).toMatchObject({ closedEarly: true });
    } finally {
      await rig.close();
    }
  });

  it('reads an answer of just the cap whole', async () => {
    const rig = await startOrsTestRig({ client: { maxAnswerBytes: CAP } });
    try {
      const names = JSON.stringify(['arith', 'y'.repeat(CAP - 20)]);
      rig.proxy.inject({
        path: '/list_environments',
        fault: {
          type: 'flood',
          status: 200,
          contentType: 'application/json',
          flood: { head: names, piece: 'z', bytes: 0 },
        },
      });
      expect(Buffer.byteLength(names)).toBeLessThanOrEqual(CAP);
      expect(await rig.client.listEnvironments()).toEqual(JSON.parse(names));
    } finally {
      await rig.close();
    }
  });
});
