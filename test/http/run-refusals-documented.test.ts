import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * The refusals `POST /v1/runs` gives when a run may not wait (test/store/quotas-and-budgets.test.ts shows
 * the server answering each), as the OpenAPI document and docs/api.md list them.
 */
const QUEUE_REFUSALS = ['queue_full', 'key_queue_full', 'store_full', 'key_store_full'];

describe("POST /v1/runs's 429s, where a client reads them", () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge();
  });
  afterAll(() => bridge?.shutdown());

  it('are each listed in the OpenAPI document, with Retry-After', async () => {
    const document = (await (await bridge.fetch('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const tooMany = JSON.stringify(document.paths['/v1/runs']!.post!.responses['429']);
    for (const code of QUEUE_REFUSALS) expect(tooMany).toContain(`"${code}"`);
    expect(tooMany).toContain('Retry-After');
  });

  it("are each listed in docs/api.md's row of the route", () => {
    const page = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const row = page.split('\n').find((line) => line.startsWith('| `POST /v1/runs` |'))!;
    const tooMany = row.slice(row.indexOf('; 429 '));
    for (const code of QUEUE_REFUSALS) expect(tooMany.split(';')[1]).toContain(`\`${code}\``);
  });
});
