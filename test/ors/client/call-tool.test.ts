import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createNodeHttp } from '../../../src/http-client/node-http.js';
import { callTool } from '../../../src/ors/client/call-tool.js';
import { OrsClient } from '../../../src/ors/client/ors-client.js';
import { nodeOrsHttp } from '../../../src/ors/client/ors-http.js';
import { Redactor } from '../../../src/ors/client/redactor.js';
import { serveLoopbackInTest } from '../../support/loopback-server.js';
import { type OrsTestRig, rejectionOf, startOrsTestRig, TEST_CLIENT_OPTIONS } from '../../support/ors-test-rig.js';
import { pythonJson, referencePieces } from '../../support/reference-sse-bytes.js';
import { textBlock } from '../../support/scripted-ors-environment.js';
import { ScriptedOrsServer } from '../../support/scripted-ors-server.js';

describe('OrsSession.call outcomes', () => {
  let rig: OrsTestRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('returns a small result from the end event, sending no task_id on the first attempt', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession();
    const outcome = await session.call('submit', { answer: 5 });
    expect(outcome).toEqual({
      type: 'output',
      taskId: expect.stringMatching(/^[0-9a-f]{32}$/),
      output: { blocks: [textBlock('Correct!')], metadata: null, reward: 1, finished: true },
    });
    expect(rig.server.requestsTo('/arith/call')).toEqual([
      { method: 'POST', path: '/arith/call', sid: session.sid, body: { name: 'submit', input: { answer: 5 } } },
    ]);
  });

  it('joins a chunked result with emoji, pieces starting with spaces, CRLF frames and ping comments', async () => {
    rig = await startOrsTestRig({ server: { pingIntervalMs: 5, writeChunkBytes: 7 } });
    const text = `a${' '.repeat(5000)}\u{1F642} caf\u00e9 ${'\u00e9\u{1F680}'.repeat(3000)} end`;
    const output = { blocks: [textBlock(text)], metadata: { source: 'scripted' }, reward: 0.5, finished: false };
    rig.server.defineTool('arith', 'long', {
      async run(_input, context) {
        await context.untilPinged();
        await context.untilPinged();
        return { ok: true, output };
      },
    });
    // The scenario really exercises what it claims: several pieces, some beginning with a space.
    const pieces = referencePieces(pythonJson({ ok: true, output }));
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.slice(1).some((piece) => piece.startsWith('  '))).toBe(true);
    const session = await rig.openSession();
    expect(await session.call('long', {})).toEqual({ type: 'output', taskId: expect.any(String), output });
    expect(rig.server.executions('long')).toBe(1);
  });

  it('returns tool_error for an end with ok false', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession();
    expect(await session.call('submit', { answer: 'five' })).toEqual({
      type: 'tool_error',
      taskId: expect.any(String),
      error: 'Invalid input: answer must be a number',
    });
    expect(await session.call('missing', {})).toMatchObject({ type: 'tool_error', error: 'Tool not found: missing' });
  });

  it('returns server_error with the whole message when the tool raises', async () => {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'explode', {
      run() {
        throw new Error('division by zero\nin step 2');
      },
    });
    const session = await rig.openSession();
    expect(await session.call('explode', {})).toEqual({
      type: 'server_error',
      taskId: expect.stringMatching(/^[0-9a-f]{32}$/),
      error: 'division by zero\nin step 2',
    });
  });

  it('reports a malformed end payload as ors_bad_response naming the offending field', async () => {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'odd', {
      run: () => ({ rawEnd: '{"ok": true, "output": {"blocks": [], "reward": "high", "finished": true}}' }),
    });
    rig.server.defineTool('arith', 'garbled', { run: () => ({ rawEnd: '{"ok": tru' }) });
    const session = await rig.openSession();
    const error = await rejectionOf(session.call('odd', {}));
    expect(error).toMatchObject({ code: 'ors_bad_response', details: { endpoint: 'POST /arith/call' } });
    expect((error as Error).message).toMatch(/^POST \/arith\/call: output\.reward: .*expected number/);
    const garbled = await rejectionOf(session.call('garbled', {}));
    expect(garbled).toMatchObject({ code: 'ors_bad_response' });
    expect((garbled as Error).message).toMatch(/^POST \/arith\/call: .*malformed JSON/);
    expect(rig.server.executions('odd')).toBe(1);
  });

  it('marks the session lost when the call answers 404', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession();
    rig.server.expireSession(session.sid);
    const error = await rejectionOf(session.call('submit', { answer: 5 }));
    expect(error).toMatchObject({ code: 'ors_session_lost', details: { status: 404 } });
    expect(session.lost.reason).toBe(error);
  });

  it('does not retry a 400 and reports ors_request_rejected', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession();
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'status', status: 400, detail: 'Invalid tool input' } });
    const error = await rejectionOf(session.call('submit', { answer: 5 }));
    expect(error).toMatchObject({
      code: 'ors_request_rejected',
      details: { status: 400, detail: 'Invalid tool input' },
    });
    expect(rig.proxy.requestsTo('/arith/call')).toHaveLength(1);
  });

  it('reads a finished answer out, so calls one after another share one connection', async () => {
    const server = await ScriptedOrsServer.start();
    const client = new OrsClient({ baseUrl: server.url, ...TEST_CLIENT_OPTIONS });
    try {
      const session = await client.openSession({ env: 'arith', task: { split: 'train', index: 0 } });
      const before = server.connections();
      for (let i = 0; i < 5; i++) expect(await session.call('submit', { answer: 5 })).toMatchObject({ type: 'output' });
      // The first call may need a connection of its own (the one /create used may have idled too long).
      expect(server.connections() - before).toBeLessThanOrEqual(1);
      expect(server.executions('submit')).toBe(5);
      await session.close();
    } finally {
      await server.close();
    }
  });

  it('returns at end without waiting for a stream the server keeps open after it', async () => {
    const output = { blocks: [textBlock('done')], metadata: null, reward: 1, finished: true };
    const server = await serveLoopbackInTest((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: task_id\ndata: t1\n\nevent: end\ndata: ${JSON.stringify({ ok: true, output })}\n\n`);
    });
    const http = createNodeHttp();
    onTestFinished(() => http.close());
    const outcome = await callTool(
      {
        transport: {
          baseUrl: server.url,
          send: nodeOrsHttp(http),
          headers: {},
          requestTimeoutMs: 600_000,
          maxAnswerBytes: 1024 * 1024,
          retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
        },
        env: 'arith',
        sid: 's1',
        silenceTimeoutMs: 600_000,
        signals: [new AbortController().signal],
        onSessionLost: () => undefined,
        redactor: new Redactor({}),
      },
      'submit',
      {},
    );
    expect(outcome).toEqual({ type: 'output', taskId: 't1', output });
  });
});
