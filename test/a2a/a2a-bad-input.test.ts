import { describe, expect, it } from 'vitest';
import { useTestBridge } from '../support/start-test-bridge.js';
import { rpc } from './a2a-support.js';

/**
 * Bad input at the A2A endpoint (docs/a2a.md, "Errors"): every mistake is a JSON-RPC error with the
 * A2A code and runbridge's own code in `data`, answering the request's id, and nothing else happens —
 * no run starts, the server keeps serving.
 */

const KEY = 'alpha-key-0123456789';
const bridge = useTestBridge(
  { RUNBRIDGE_API_KEYS: KEY, RUNBRIDGE_DEFAULT_ENV: 'arith', RUNBRIDGE_MAX_BODY_BYTES: '4096' },
  { apiKey: KEY },
);
const auth = { Authorization: `Bearer ${KEY}` };
const v1 = { ...auth, 'A2A-Version': '1.0' };

/** A v1.0 `SendMessage` of `parts`. */
function send(parts: unknown[], id: number | string = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'SendMessage',
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts } },
  };
}

async function answerOf(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  return (await response.json()) as { id: unknown; error: { code: number; message: string; data: unknown } };
}

/** runbridge's code in a v1.0 error's `data` (its `ErrorInfo`'s metadata). */
function codeIn(data: unknown): string {
  return (data as Array<{ metadata?: { code?: string } }>)[0]!.metadata!.code!;
}

async function runCount(): Promise<number> {
  return ((await (await bridge.fetch('/v1/runs?limit=100')).json()) as { data: unknown[] }).data.length;
}

describe('bad input at the A2A endpoint', () => {
  it('refuses a batch, an unknown method, an unsupported version and a body that is not JSON', async () => {
    const before = await runCount();
    const batch = await answerOf(await rpc(bridge.url, [send([{ text: 'a' }]), send([{ text: 'b' }], 2)], v1));
    expect(batch).toMatchObject({ id: null, error: { code: -32600 } });
    expect(codeIn(batch.error.data)).toBe('jsonrpc_batch_refused');

    const unknown = await answerOf(
      await rpc(bridge.url, { jsonrpc: '2.0', id: 3, method: 'tasks/explode', params: {} }, v1),
    );
    expect(unknown).toMatchObject({ id: 3, error: { code: -32601 } });
    expect(codeIn(unknown.error.data)).toBe('jsonrpc_unknown_method');

    // Without A2A-Version the request is v0.3, whose methods have other names.
    const noVersion = await answerOf(await rpc(bridge.url, send([{ text: 'a' }], 'x'), auth));
    expect(noVersion).toMatchObject({ id: 'x', error: { code: -32601, data: { code: 'jsonrpc_unknown_method' } } });

    const version = await answerOf(await rpc(bridge.url, send([{ text: 'a' }], 4), { ...auth, 'A2A-Version': '0.5' }));
    expect(version).toMatchObject({ id: 4, error: { code: -32009 } });
    expect(codeIn(version.error.data)).toBe('protocol_version_unsupported');

    const notJson = await answerOf(await rpc(bridge.url, '{"jsonrpc": "2.0", "id": 5,', v1));
    expect(notJson).toMatchObject({ id: null, error: { code: -32700 } });

    const notRpc = await answerOf(await rpc(bridge.url, { id: 6, method: 'SendMessage' }, v1));
    expect(notRpc).toMatchObject({ id: 6, error: { code: -32600 } });
    expect(await runCount()).toBe(before);
  });

  it('refuses a body over the cap with 413, still as a JSON-RPC error', async () => {
    const response = await rpc(bridge.url, send([{ text: 'x'.repeat(8000) }]), v1);
    expect(response.status).toBe(413);
    const answer = await answerOf(response);
    expect(answer.error.code).toBe(-32600);
    expect(codeIn(answer.error.data)).toBe('body_too_large');
  });

  it('refuses file parts and parts of no kind, by name, in both versions', async () => {
    const before = await runCount();
    const file = await answerOf(
      await rpc(bridge.url, send([{ text: 'see' }, { url: 'https://example.com/a.png' }]), v1),
    );
    expect(file.error).toMatchObject({ code: -32005, message: expect.stringMatching(/Part 1 is a file/) });
    expect(codeIn(file.error.data)).toBe('unsupported_part');

    const none = await answerOf(await rpc(bridge.url, send([{ metadata: {} }]), v1));
    expect(none.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/exactly one of text, data, raw or url/),
    });

    const v03 = {
      jsonrpc: '2.0',
      id: 9,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'video', url: 'x' }] } },
    };
    const video = await answerOf(await rpc(bridge.url, v03, auth));
    expect(video).toMatchObject({ id: 9, error: { code: -32602, data: { code: 'invalid_request' } } });
    expect(video.error.message).toMatch(/kind "video"/);

    const v03File = structuredClone(v03);
    v03File.params.message.parts = [{ kind: 'file', file: { uri: 'https://example.com/a.pdf' } } as never];
    expect((await answerOf(await rpc(bridge.url, v03File, auth))).error.code).toBe(-32005);

    const twoData = await answerOf(
      await rpc(bridge.url, send([{ data: { env: 'arith' } }, { data: { max_turns: 2 } }]), v1),
    );
    expect(twoData.error.message).toMatch(/at most one data part/);
    const arrayData = await answerOf(await rpc(bridge.url, send([{ data: [1, 2] }]), v1));
    expect(arrayData.error.code).toBe(-32602);
    expect(await runCount()).toBe(before);
  });

  it('answers a call without a key 401, and tells an unknown task from a mistake', async () => {
    const anonymous = await rpc(bridge.url, send([{ text: 'hi' }]), { 'A2A-Version': '1.0' });
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    const missing = await answerOf(
      await rpc(bridge.url, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'run_nope' } }, v1),
    );
    expect(missing.error.code).toBe(-32001);
    expect(codeIn(missing.error.data)).toBe('run_not_found');
    const noParams = await answerOf(await rpc(bridge.url, { jsonrpc: '2.0', id: 2, method: 'GetTask' }, v1));
    expect(noParams.error.code).toBe(-32602);
  });

  it('answers the push config methods -32003 while push notifications are not served', async () => {
    const push = await answerOf(
      await rpc(
        bridge.url,
        { jsonrpc: '2.0', id: 1, method: 'ListTaskPushNotificationConfigs', params: { taskId: 't' } },
        v1,
      ),
    );
    expect(push.error.code).toBe(-32003);
    const card = await (await fetch(`${bridge.url}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.pushNotifications).toBe(false);
  });
});
