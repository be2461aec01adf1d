import { describe, expect, it } from 'vitest';
import type { ModelProvider, ServedModelLimits } from '../../src/models/model.js';
import { ModelCatalog } from '../../src/models/model-catalog.js';
import { ModelRegistry } from '../../src/models/model-registry.js';
import { eventually } from '../support/eventually.js';

/** A promise settled by the test. */
function settleable<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((done, fail) => {
    resolve = done;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** A provider whose vendor answers what the test says, when the test says; it counts the askings. */
function askedProvider() {
  const answers: Array<ReturnType<typeof settleable<readonly string[]>>> = [];
  const limits: ServedModelLimits[] = [];
  const provider: ModelProvider = {
    name: 'served',
    listedModels: [],
    defaultModel: 'fallback',
    create: () => {
      throw new Error('not played here');
    },
    servedModels: (given) => {
      limits.push(given);
      const answer = settleable<readonly string[]>();
      answers.push(answer);
      return answer.promise;
    },
  };
  return { provider, answers, limits };
}

describe('the model catalog', () => {
  const setUp = () => {
    const vendor = askedProvider();
    let now = 1_000_000;
    const catalog = new ModelCatalog(new ModelRegistry([vendor.provider], 'served:a'), {
      maxModels: 3,
      maxBytes: 4096,
      ttlMs: 30_000,
      failureTtlMs: 5_000,
      now: () => now,
    });
    return { ...vendor, catalog, advance: (ms: number) => (now += ms) };
  };
  const ids = async (catalog: ModelCatalog) => (await catalog.list()).models.map((model) => model.id);

  it('asks once for the callers that come while it asks, within the limits it was given', async () => {
    const { catalog, answers, limits } = setUp();
    const first = catalog.list();
    const second = catalog.list();
    expect(answers).toHaveLength(1);
    expect(limits[0]).toMatchObject({ maxModels: 3, maxBytes: 4096, timeoutMs: 5_000 });
    answers[0]!.resolve(['a', 'b']);
    for (const listing of await Promise.all([first, second])) {
      expect(listing).toEqual({
        models: [
          { id: 'served:a', provider: 'served' },
          { id: 'served:b', provider: 'served' },
        ],
        defaultModel: 'served:a',
        unreachable: [],
      });
    }
  });

  it('answers a list past its time at once, asking for the next one meanwhile', async () => {
    const { catalog, answers, advance } = setUp();
    catalog.warm();
    answers[0]!.resolve(['a']);
    expect(await ids(catalog)).toEqual(['served:a']);
    advance(29_999);
    expect(await ids(catalog)).toEqual(['served:a']);
    expect(answers).toHaveLength(1);
    advance(1);
    // Not waiting for the second answer, which has not come.
    expect(await ids(catalog)).toEqual(['served:a']);
    expect(answers).toHaveLength(2);
    answers[1]!.resolve(['a', 'c']);
    await eventually(async () => (await ids(catalog)).length === 2, 'the second list');
    expect(await ids(catalog)).toEqual(['served:a', 'served:c']);
    expect(answers).toHaveLength(2);
  });

  it('lists the default model and says why while the vendor fails, and asks again after a while', async () => {
    const { catalog, answers, advance } = setUp();
    const listing = catalog.list();
    answers[0]!.reject(new Error('GET http://vllm/v1/models gave no list of models: Connection error.'));
    expect(await listing).toEqual({
      models: [{ id: 'served:fallback', provider: 'served' }],
      defaultModel: 'served:a',
      unreachable: [
        { provider: 'served', error: 'GET http://vllm/v1/models gave no list of models: Connection error.' },
      ],
    });
    advance(4_999);
    expect((await catalog.list()).unreachable).toHaveLength(1);
    expect(answers).toHaveLength(1);
    advance(1);
    const again = catalog.list();
    answers[1]!.resolve(['back']);
    expect((await again).models.map((model) => model.id)).toEqual(['served:back']);
  });

  it('asks nothing once closed, and aborts what it was asking', async () => {
    const { catalog, answers, limits } = setUp();
    catalog.warm();
    catalog.close();
    expect(limits[0]!.signal.aborted).toBe(true);
    answers[0]!.reject(limits[0]!.signal.reason);
    await catalog.list();
    expect(answers).toHaveLength(1);
  });
});
