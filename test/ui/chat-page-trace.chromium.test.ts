import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';
import { accessibilityViolations, startRunFromForm, useChatPageRig } from './support/chat-page.js';

/** The chat page on a traced bridge: the run's heading shows its trace id, linked by RUNBRIDGE_TRACE_URL. */
describe('the chat page of a traced run', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver?.close());

  const rig = useChatPageRig(() => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    RUNBRIDGE_TRACE_URL: 'https://jaeger.example/trace/{trace_id}',
  }));

  it("links the run's heading to its trace", async () => {
    const { tab } = await rig.open();
    const runId = await startRunFromForm(tab, { env: 'arith', index: 1 });
    await tab.locator('.outcome-completed').waitFor();
    const snapshot = (await (await rig.bridge.fetch(`/v1/runs/${runId}`)).json()) as { trace_id: string };
    const link = tab.locator('.run-head a.run-trace');
    expect(await link.getAttribute('href')).toBe(`https://jaeger.example/trace/${snapshot.trace_id}`);
    expect(await link.textContent()).toBe(`trace ${snapshot.trace_id}`);
    expect(await accessibilityViolations(tab)).toEqual([]);
  });
});
