import { describe, expect, it } from 'vitest';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { useTestBridge } from '../support/start-test-bridge.js';

/** Bodies of POST /v1/runs that must each get a 4xx with the error body (docs/protocol.md §2). */
const BAD_BODIES: Array<[string, string, string?]> = [
  ['not JSON', '{'],
  ['trailing garbage', '{"env":"arith"} x'],
  ['a JSON string', '"arith"'],
  ['a JSON number', '42'],
  ['a JSON array', '[]'],
  ['JSON null', 'null'],
  ['an unknown key', '{"envv":"arith"}'],
  ['a nested unknown key', '{"sampling":{"temperature":0.5,"temp":1}}'],
  ['env as a number', '{"env":1}'],
  ['env empty', '{"env":""}'],
  ['env with a slash', '{"env":"../admin"}'],
  ['env with a space', '{"env":"ar ith"}'],
  ['env too long', JSON.stringify({ env: 'a'.repeat(200) })],
  ['task as a string', '{"task":"0"}'],
  ['task with a negative index', '{"task":{"split":"train","index":-1}}'],
  ['task with a fractional index', '{"task":{"split":"train","index":1.5}}'],
  ['task with a string index', '{"task":{"split":"train","index":"1"}}'],
  ['task with an empty split', '{"task":{"split":"","index":1}}'],
  ['task with an unknown key', '{"task":{"index":1,"sample":2}}'],
  ['task spec the environment refuses', '{"task":{"spec":{"question":7}}}'],
  ['task with both forms', '{"task":{"split":"train","index":1,"spec":{}}}'],
  ['task spec as an array', '{"task":{"spec":[]}}'],
  ['input as a number', '{"input":5}'],
  ['input message without role', '{"input":[{"content":"hi"}]}'],
  ['input message with tool role', '{"input":[{"role":"tool","content":"hi"}]}'],
  ['input message with an unknown part', '{"input":[{"role":"user","content":[{"type":"audio","audio":"x"}]}]}'],
  [
    'input image by http URL',
    '{"input":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"http://example.com/a.png"}}]}]}',
  ],
  ['input with empty part list', '{"input":[{"role":"user","content":[]}]}'],
  ['instructions as an object', '{"instructions":{}}'],
  ['model as a number', '{"model":7}'],
  ['model with spaces', '{"model":"open ai:gpt"}'],
  ['model with an unknown provider', '{"model":"nosuch:thing"}'],
  ['model in upper case', '{"model":"OPENAI:gpt"}'],
  ['max_turns zero', '{"max_turns":0}'],
  ['max_turns negative', '{"max_turns":-3}'],
  ['max_turns fractional', '{"max_turns":2.5}'],
  ['max_turns huge', '{"max_turns":1000000}'],
  ['max_turns as a string', '{"max_turns":"5"}'],
  ['sampling as a list', '{"sampling":[]}'],
  ['temperature too high', '{"sampling":{"temperature":9}}'],
  ['temperature negative', '{"sampling":{"temperature":-1}}'],
  ['top_p zero', '{"sampling":{"top_p":0}}'],
  ['max_tokens zero', '{"sampling":{"max_tokens":0}}'],
  ['seed fractional', '{"sampling":{"seed":0.5}}'],
  ['extra_body as a string', '{"sampling":{"extra_body":"x"}}'],
  ['secrets as a string', '{"secrets":"hunter2"}'],
  ['metadata as a list', '{"metadata":[1,2]}'],
  ['reward_reduction unknown', '{"reward_reduction":"median"}'],
  ['a wrong content type', '{"env":"arith"}', 'text/plain'],
  ['a form body', 'env=arith', 'application/x-www-form-urlencoded'],
  ['a multipart content type', '{"env":"arith"}', 'multipart/form-data; boundary=x'],
  ['deep nesting', `{"metadata":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`],
  ['an unknown environment', '{"env":"nosuchenv"}'],
  ['an unknown split', '{"task":{"split":"nosuchsplit","index":0}}'],
  ['an index past the split', '{"task":{"split":"train","index":99999999}}'],
];

describe('bad input to the runs API', () => {
  const bridge = useTestBridge({ RUNBRIDGE_MAX_BODY_BYTES: '200000' });

  it(`answers each of ${BAD_BODIES.length} malformed bodies with a clear 4xx while another run goes on`, async () => {
    const runId = await bridge.startRun({ env: 'workspace' });
    const reading = bridge.readEvents(runId);
    for (const [what, body, contentType] of BAD_BODIES) {
      const response = await bridge.fetch('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': contentType ?? 'application/json' },
        body,
      });
      expect(response.status, what).toBeGreaterThanOrEqual(400);
      expect(response.status, what).toBeLessThan(500);
      const answer = (await response.json()) as { error: { code: string; message: string } };
      expect(answer.error.code, what).toMatch(/^[a-z_]+$/);
      expect(answer.error.message.length, what).toBeGreaterThan(10);
    }
    const events = await reading;
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
    expect(((await (await bridge.fetch('/v1/runs?limit=100')).json()) as { data: unknown[] }).data).toHaveLength(1);
  });

  it('names the offending field', async () => {
    const response = await bridge.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"max_turns":0,"envv":1}',
    });
    const answer = (await response.json()) as { error: { message: string; details: Array<{ path: string }> } };
    expect(answer.error.message).toContain('max_turns');
    expect(answer.error.message).toContain('envv');
    expect(answer.error.details.map((detail) => detail.path)).toEqual(expect.arrayContaining(['max_turns']));
  });

  it('answers 413 for a body over the limit without reading all of it', async () => {
    const response = await bridge.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ instructions: 'x'.repeat(300_000) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'body_too_large' } });
  });

  it.each([
    ['a bad status filter', '/v1/runs?status=weird'],
    ['a zero limit', '/v1/runs?limit=0'],
    ['an unknown query key', '/v1/runs?colour=red'],
    ['a repeated query key', '/v1/runs?limit=1&limit=2'],
  ])('answers 400 to %s', async (_what, path) => {
    const response = await bridge.fetch(path);
    expect(response.status).toBe(400);
  });

  it('answers 400 to a bad Idempotency-Key', async () => {
    const response = await bridge.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'x'.repeat(300) },
      body: '{}',
    });
    expect(response.status).toBe(400);
  });
});
