import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { type TestBridge, useTestBridge } from '../support/start-test-bridge.js';

/**
 * A `"__proto__"` key is refused wherever a body may put one (docs/protocol.md §2.5): a JavaScript
 * reader takes it for an object's prototype rather than data, so the bridge's own schemas dropped it
 * from `metadata` without a word and any client copying an echo would do the same. Written as JSON
 * text, as a hostile client sends it (an object literal would set the prototype instead).
 */

const PROTO = '{"__proto__":{"polluted":true},"kept":1}';

/** POSTs raw JSON text and returns the status and the parsed answer. */
async function post(bridge: TestBridge, path: string, body: string): Promise<{ status: number; answer: unknown }> {
  const response = await bridge.fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  return { status: response.status, answer: await response.json() };
}

describe('a "__proto__" key in a request body', () => {
  const bridge = useTestBridge();

  it.each([
    ['metadata', `{"metadata":${PROTO}}`, 'metadata.__proto__'],
    ['metadata, nested', `{"metadata":{"deep":[${PROTO}]}}`, 'metadata.deep.0.__proto__'],
    ['secrets', `{"secrets":${PROTO}}`, 'secrets.__proto__'],
    ['task.spec', `{"env":"arith","task":{"spec":${PROTO}}}`, 'task.spec.__proto__'],
    ['sampling.extra_body', `{"sampling":{"extra_body":${PROTO}}}`, 'sampling.extra_body.__proto__'],
    [
      'a content part of input',
      `{"input":[{"role":"user","content":[{"type":"text","text":"hi","__proto__":{}}]}]}`,
      'input.0.content.0.__proto__',
    ],
    ['the top level', `{"__proto__":{"env":"workspace"}}`, '__proto__'],
  ])('is a 400 in %s of POST /v1/runs, naming where it is', async (_what, body, path) => {
    const { status, answer } = await post(bridge, '/v1/runs', body);
    expect(status).toBe(400);
    expect(answer).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining('"__proto__"') },
    });
    expect((answer as { error: { details: unknown } }).error.details).toEqual([
      { path, message: expect.stringContaining('__proto__') },
    ]);
  });

  it('is a 400 in the metadata of POST /v1/chat/completions', async () => {
    const { status, answer } = await post(
      bridge,
      '/v1/chat/completions',
      `{"messages":[{"role":"user","content":"hi"}],"metadata":${PROTO}}`,
    );
    expect(status).toBe(400);
    expect(answer).toMatchObject({ error: { code: 'invalid_request', details: [{ path: 'metadata.__proto__' }] } });
  });

  it('is a 400 in the edited arguments of an approval, which stays open for a good decision', async () => {
    const runId = await bridge.startRun({ env: 'arith', approval: { tools: '*' } });
    const approvalId = await eventually(async () => {
      const snapshot = (await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as {
        pending_approvals: Array<{ approval_id: string }>;
      };
      return snapshot.pending_approvals[0]?.approval_id;
    }, 'the approval to open');
    const refused = await post(
      bridge,
      `/v1/runs/${runId}/approvals/${approvalId}`,
      `{"decision":"approve","arguments":${PROTO}}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.answer).toMatchObject({ error: { details: [{ path: 'arguments.__proto__' }] } });
    const denied = await post(bridge, `/v1/runs/${runId}/approvals/${approvalId}`, '{"decision":"deny"}');
    expect(denied.status).toBe(200);
    await bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    await bridge.readEvents(runId);
  });

  it('is still data under any other name, "constructor" and "prototype" included, echoed as sent', async () => {
    const metadata = '{"constructor":{"prototype":1},"toString":"x","hasOwnProperty":2}';
    const { status, answer } = await post(bridge, '/v1/runs', `{"metadata":${metadata}}`);
    expect(status).toBe(202);
    const { run_id: runId } = answer as { run_id: string };
    const snapshot = (await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as { metadata: unknown };
    expect(JSON.stringify(snapshot.metadata)).toBe(metadata);
    await bridge.readEvents(runId);
  });
});
