import { describe, expect, it } from 'vitest';
import { readScrape } from '../support/read-scrape.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { useTestBridge } from '../support/start-test-bridge.js';

/**
 * The labels of `GET /metrics` (docs/security.md, docs/operations.md#metrics): a tenant's own strings
 * never become a label, and no tenant can take a label from the operator's models or environments.
 */

const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';
const METRICS_TOKEN = 'scrape-0123456789abcdef';
const json = { 'Content-Type': 'application/json' };

describe('the model and environment labels', () => {
  const bridge = useTestBridge(
    {
      RUNBRIDGE_API_KEYS: `${KEY_A},${KEY_B}`,
      RUNBRIDGE_METRICS_TOKEN: METRICS_TOKEN,
      RUNBRIDGE_METRICS_MODELS: 'scripted:acme-b',
    },
    // `scripted:<any name>` plays "done"; the provider lists one model, `b-listed`.
    { providers: [scriptedProvider({ 'b-listed': [] })] },
  );

  const runAs = async (key: string, body: Record<string, unknown>) => {
    const response = await fetch(`${bridge.url}/v1/runs`, {
      method: 'POST',
      headers: { ...json, Authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    const { run_id: runId } = (await response.json()) as { run_id: string };
    expect(response.status).toBe(202);
    await bridge.readEvents(runId, { headers: { Authorization: `Bearer ${key}` } });
  };
  const scrapeText = async () =>
    (await fetch(`${bridge.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const scrape = async () => readScrape(await scrapeText());

  it('keep the models the operator configured or listed after another key floods 60 names of its own, which read other', async () => {
    await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        runAs(KEY_A, { env: 'arith', model: `scripted:acme-private-finetune-v${index}` }),
      ),
    );
    await runAs(KEY_B, { env: 'arith', model: 'scripted:b-listed' });
    await runAs(KEY_B, { env: 'arith', model: 'scripted:acme-b' });

    const metrics = await scrape();
    const calls = (model: string) =>
      metrics.value('gen_ai_client_operation_duration_seconds_count', {
        gen_ai_operation_name: 'chat',
        gen_ai_provider_name: 'scripted',
        gen_ai_request_model: model,
      });
    expect(calls('b-listed')).toBe(1);
    expect(calls('acme-b')).toBe(1);
    expect(calls('other')).toBe(60);
    expect(await scrapeText()).not.toContain('acme-private-finetune');
  });

  it('name an environment as the ORS server does, however a caller spells it', async () => {
    for (const env of ['ARITH', 'Arith', 'aRiTh']) await runAs(KEY_A, { env, model: 'scripted:b-listed' });
    const metrics = await scrape();
    const envs = metrics.families
      .filter((family) => family.name === 'runbridge_runs_started_total')
      .flatMap((family) => family.metrics.map((metric) => metric.labels?.env));
    expect(envs).toEqual(['arith']);
  });

  it('are read by the scraper alone: no API key reads /metrics', async () => {
    for (const key of [KEY_A, KEY_B]) {
      const answer = await fetch(`${bridge.url}/metrics`, { headers: { Authorization: `Bearer ${key}` } });
      expect(answer.status).toBe(401);
    }
  });
});
