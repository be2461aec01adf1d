import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../../src/http/authenticate.js';
import { DEFAULT_FORMAT_OPTIONS } from '../../../src/http/formats/stream-format.js';
import { STREAM_FORMATS } from '../../../src/http/formats/stream-formats.js';
import { streamContextOf } from '../../../src/http/serve-run-stream.js';
import { startTestBridge, type TestBridge } from '../../support/start-test-bridge.js';

const RETRY_LINE = 'retry: 3000\n';

describe('the stream formats over HTTP', () => {
  let bridge: TestBridge;
  let runId: string;

  beforeAll(async () => {
    bridge = await startTestBridge();
    runId = await bridge.startRun({ env: 'arith', task: { split: 'train', index: 2 } });
    await bridge.readEvents(runId);
  });
  afterAll(() => bridge.shutdown());

  /** What format `name` says about the run's events after `after`, computed in-process from its log. */
  async function projection(name: string, after: number, options = DEFAULT_FORMAT_OPTIONS): Promise<string> {
    const run = await bridge.registry.open(runId, LOCAL_OWNER);
    const format = STREAM_FORMATS[name]!;
    const context = streamContextOf(run, options);
    return (
      run.log.entries
        .slice(after + 1)
        .map((entry) => format.frame(entry, context))
        .join('') + format.end(run.log.terminal!, context)
    );
  }

  it.each(['openai', 'combined', 'ag-ui', 'ai-sdk'])(
    'serves format=%s as its projection of the log, with the SSE headers',
    async (name) => {
      const response = await bridge.fetch(`/v1/runs/${runId}/events?format=${name}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toBe(RETRY_LINE + (await projection(name, -1)));
    },
  );

  it.each(['openai', 'combined', 'ag-ui', 'ai-sdk'])('resumes format=%s with ?after=', async (name) => {
    const response = await bridge.fetch(`/v1/runs/${runId}/events?format=${name}&after=7`);
    expect(await response.text()).toBe(RETRY_LINE + (await projection(name, 7)));
  });

  it.each(['combined', 'ag-ui', 'ai-sdk'])(
    'resumes format=%s, whose frames carry ids, with Last-Event-ID',
    async (name) => {
      const response = await bridge.fetch(`/v1/runs/${runId}/events?format=${name}`, {
        headers: { 'Last-Event-ID': '12' },
      });
      expect(await response.text()).toBe(RETRY_LINE + (await projection(name, 12)));
    },
  );

  it.each(['openai', 'combined', 'ag-ui', 'ai-sdk'])(
    'answers 204 to format=%s once the client has the whole log of a finished run',
    async (name) => {
      const lastSeq = (await bridge.registry.open(runId, LOCAL_OWNER)).log.lastSeq;
      expect((await bridge.fetch(`/v1/runs/${runId}/events?format=${name}&after=${lastSeq}`)).status).toBe(204);
    },
  );

  it('names the UI message stream protocol in a header of format=ai-sdk only', async () => {
    const aiSdk = await bridge.fetch(`/v1/runs/${runId}/events?format=ai-sdk`);
    expect(aiSdk.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    await aiSdk.body?.cancel();
    const events = await bridge.fetch(`/v1/runs/${runId}/events`);
    expect(events.headers.get('x-vercel-ai-ui-message-stream')).toBeNull();
    await events.body?.cancel();
  });

  it('lets the typed events ride along in format=openai with ?agent_events=1', async () => {
    const response = await bridge.fetch(`/v1/runs/${runId}/events?format=openai&agent_events=1`);
    const text = await response.text();
    expect(text).toBe(RETRY_LINE + (await projection('openai', -1, { agentEvents: true })));
    expect(text).toContain('"agent_event":{"event":"tool.completed"');
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'answers 400 to format=%s, a name every object inherits, rather than dropping the connection',
    async (name) => {
      const response = await bridge.fetch(`/v1/runs/${runId}/events?format=${name}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'unknown_format' } });
    },
  );

  it('answers 400 naming the formats for an unknown one', async () => {
    const response = await bridge.fetch(`/v1/runs/${runId}/events?format=xml`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'unknown_format', message: expect.stringContaining('events, openai, combined, ag-ui, ai-sdk') },
    });
  });
});
