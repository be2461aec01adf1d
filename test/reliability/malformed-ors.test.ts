import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/ors/ors-schemas.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { type ProxiedOrsBridge, proxiedOrsBridges } from '../support/proxied-ors-bridge.js';
import {
  arithEnvironment,
  type ScriptedEnvironment,
  type ScriptedToolReply,
} from '../support/scripted-ors-environment.js';

/**
 * An ORS server that answers things no ORS server should (docs/protocol.md §5, §6): a run that meets one
 * fails with `ors_bad_response` and a message naming the endpoint and what was wrong, and its
 * session is still deleted.
 */

type Rig = ProxiedOrsBridge;

const startProxied = proxiedOrsBridges();

function startRig(environment: ScriptedEnvironment = arithEnvironment()): Promise<Rig> {
  return startProxied({ environment });
}

async function failure(rig: Rig): Promise<{ events: RunEvent[]; code: string; error: string }> {
  const events = await rig.bridge.readEvents(await rig.bridge.startRun({}));
  assertEventOrder(events);
  const last = events.at(-1)!;
  expect(last.event).toBe('run.failed');
  expect(rig.server.openSessions()).toEqual([]);
  return last.event === 'run.failed' ? { events, code: last.code, error: last.error } : { events, code: '', error: '' };
}

describe('malformed tool results', () => {
  it.each<[string, ScriptedToolReply, RegExp]>([
    ['an end that is not JSON', { rawEnd: '{"ok": true, "output": ' }, /malformed JSON/],
    [
      'an end with blocks of the wrong type',
      { rawEnd: '{"ok": true, "output": {"blocks": "Correct!", "reward": 1, "finished": true}}' },
      /blocks/,
    ],
    [
      'an end with a reward that is not a number',
      { rawEnd: '{"ok": true, "output": {"blocks": [], "reward": "1", "finished": true}}' },
      /reward/,
    ],
    ['an end without ok', { rawEnd: '{"output": {"blocks": []}}' }, /ok/],
    ['an end that is a bare string', { rawEnd: '"done"' }, /does not match the ORS wire format/],
  ])('fail the run with ors_bad_response for %s', async (_what, reply, detail) => {
    const rig = await startRig();
    rig.server.defineTool('arith', 'submit', { run: () => reply });
    const { events, code, error } = await failure(rig);
    expect(code).toBe('ors_bad_response');
    expect(error).toContain('POST /arith/call');
    expect(error).toMatch(detail);
    expect(events.at(-2)).toMatchObject({ event: 'tool.completed', tool: 'submit', error: true });
    expect(rig.server.executions('submit')).toBe(1);
  });

  it('fails the run with ors_bad_response when every call stream ends without an end event', async () => {
    const rig = await startRig();
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'end-after-task-id' }, times: 100 });
    const { code, error } = await failure(rig);
    expect(code).toBe('ors_bad_response');
    expect(error).toMatch(
      /POST \/arith\/call.*ended the stream without an end or error event.*does not follow the ORS call protocol/,
    );
    // Resent by task_id each time: the tool itself ran once.
    expect(rig.server.executions('submit')).toBe(1);
    expect(rig.proxy.requestsTo('/arith/call').length).toBeGreaterThan(1);
  });
});

describe('malformed episode answers', () => {
  it('fails the run with ors_bad_response for a prompt block without its text', async () => {
    const environment = arithEnvironment();
    environment.prompt = () => [{ type: 'text', detail: null } as unknown as Block];
    const rig = await startRig(environment);
    const { events, code, error } = await failure(rig);
    expect(code).toBe('ors_bad_response');
    expect(error).toContain('GET /arith/prompt');
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.failed']);
  });

  it('fails the run with ors_bad_response for a tool list of the wrong shape', async () => {
    const environment = arithEnvironment();
    environment.tools.submit!.spec = {
      name: 42,
      description: ['not', 'text'],
    } as unknown as ScriptedEnvironment['tools'][string]['spec'];
    const rig = await startRig(environment);
    const { code, error } = await failure(rig);
    expect(code).toBe('ors_bad_response');
    expect(error).toContain('GET /arith/task_tools');
    expect(rig.server.executions('submit')).toBe(0);
  });
});
