import { describe, expect, it } from 'vitest';
import { decide, echo, eventsMatching, ofType, sendMessage, startHitlBridge } from '../hitl/hitl-support.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { useStarted } from '../support/use-started.js';

/**
 * Retry-After (docs/api.md): every refusal that passes by itself tells the caller when to come back from
 * one estimate — the bridge's mean run time, scaled by how busy its slots are — whatever refused it: the
 * queue, for a run or a rollout batch, or a run's unread messages.
 */
describe('Retry-After', () => {
  // One slot, held by a run that waits for a decision; two places in the queue.
  const bridge = useStarted(
    'the bridge',
    () =>
      startHitlBridge([scriptedProvider({ gated: [{ toolCalls: [echo('first')] }, { text: 'Done.' }] })], {
        env: {
          RUNBRIDGE_MAX_CONCURRENT_RUNS: '1',
          RUNBRIDGE_MAX_QUEUED_RUNS: '2',
          RUNBRIDGE_MAX_QUEUED_PER_KEY: '2',
        },
      }),
    (started) => started.shutdown(),
  );

  it('is the same estimate for a refused run, a refused rollout batch and a message past the unread ones', async () => {
    const runId = await bridge.startRun({ model: 'scripted:gated', approval: { tools: ['echo'] } });
    const [required] = await eventsMatching(bridge, runId, ofType('tool.approval_required'));
    for (let queued = 0; queued < 2; queued++) await bridge.startRun({ model: 'offline' });
    const post = (path: string, body: unknown) =>
      bridge.fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });

    const run = await post('/v1/runs', { model: 'offline' });
    const batch = await post('/v1/rollouts', { env: 'arith', tasks: '0:1', samples: 1, model: 'offline' });
    for (let index = 0; index < 16; index++) expect((await sendMessage(bridge, runId, `m${index}`)).status).toBe(202);
    const message = await post(`/v1/runs/${runId}/messages`, { content: 'one too many' });

    const refusals = [run, batch, message];
    expect(refusals.map((answer) => answer.status)).toEqual([429, 429, 429]);
    const [estimate, ...others] = refusals.map((answer) => Number(answer.headers.get('retry-after')));
    // No run has ended yet: the mean run time is taken as 5 s, and the queue holds two runs per slot.
    expect(estimate).toBe(15);
    expect(others).toEqual([estimate, estimate]);

    expect((await decide(bridge, runId, required!.approval_id, { decision: 'approve' })).status).toBe(200);
  });
});
