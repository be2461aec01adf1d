import { describe, expect, it } from 'vitest';
import { useTestBridge } from '../support/start-test-bridge.js';

/**
 * The built-in ORS server inside `runbridge serve` listens on a loopback port, where any local
 * process can reach it. It takes only requests that bear the secret its bridge made at start-up, so
 * such a process opens no session, runs no tool and reads nothing (docs/security.md).
 */
describe('the built-in ORS server of a bridge', () => {
  const bridge = useTestBridge({ RUNBRIDGE_API_KEYS: 'k1-0123456789abcdef' }, { apiKey: 'k1-0123456789abcdef' });

  it('refuses every request without the secret, and its bridge still plays runs through it', async () => {
    expect(bridge.orsServer).toBeDefined();
    const sid = 'intruder-session';
    const attempts: Array<[string, string, unknown]> = [
      ['GET', '/health', undefined],
      ['GET', '/list_environments', undefined],
      ['GET', '/workspace/tools', undefined],
      ['POST', '/workspace/num_tasks', { split: 'train' }],
      ['POST', '/create_session', {}],
      ['POST', '/create', { env_name: 'workspace', split: 'train', index: 0 }],
      ['POST', '/ping', undefined],
      ['GET', '/workspace/prompt', undefined],
      ['POST', '/workspace/call', { name: 'search', input: { pattern: 'x', deep: true } }],
    ];
    for (const [method, path, body] of attempts) {
      for (const authorization of [undefined, 'Bearer k1-0123456789abcdef', 'Bearer wrong']) {
        const response = await fetch(`${bridge.orsUrl}${path}`, {
          method,
          headers: {
            'X-Session-ID': sid,
            'Content-Type': 'application/json',
            ...(authorization === undefined ? {} : { Authorization: authorization }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(response.status, `${method} ${path} ${authorization}`).toBe(401);
        expect(await response.json()).toEqual({ detail: expect.stringContaining('Authorization: Bearer') });
      }
    }
    expect(bridge.orsServer!.activeSessionIds()).toEqual([]);

    const runId = await bridge.startRun({ env: 'workspace' });
    expect((await bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
    expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
  });
});
