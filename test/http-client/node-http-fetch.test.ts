import OpenAI from 'openai';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createNodeHttp } from '../../src/http-client/node-http.js';
import { nodeHttpFetch } from '../../src/http-client/node-http-fetch.js';
import { serveLoopbackInTest as serve } from '../support/loopback-server.js';

/**
 * The `fetch` the model SDKs get by default: `node:http` with keep-alive, its answer read as a
 * `Response` is — status, headers, whole body or bytes as they come — and an abort ends it as
 * `fetch`'s would.
 */
describe('the fetch on node:http for the model SDKs', () => {
  function fetchOnNodeHttp(): typeof fetch {
    const http = createNodeHttp();
    onTestFinished(() => http.close());
    return nodeHttpFetch(http);
  }

  it('sends method, headers and body, and answers status, headers and the body as JSON, on one kept-alive connection', async () => {
    const target = await serve((req, res, body) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, body }));
    });
    const send = fetchOnNodeHttp();
    for (let i = 0; i < 3; i++) {
      const response = await send(`${target.url}/v1/x`, {
        method: 'POST',
        headers: new Headers({ Authorization: 'Bearer k', 'Content-Type': 'application/json' }),
        body: '{"n":1}',
      });
      expect(response).toMatchObject({ status: 201, statusText: 'Made', ok: true, url: `${target.url}/v1/x` });
      expect(response.headers.get('X-Request-Id')).toBe('req_1');
      expect(response.bodyUsed).toBe(false);
      expect(await response.json()).toEqual({ method: 'POST', auth: 'Bearer k', body: '{"n":1}' });
      expect(response.bodyUsed).toBe(true);
      await expect(response.text()).rejects.toThrow(TypeError);
    }
    expect(target.connections()).toBe(1);
  });

  it('sends headers given as a record or as pairs, repeated names joined as fetch joins them', async () => {
    const target = await serve((req, res) => res.end(`${req.headers['x-one']} | ${req.headers['x-many']}`));
    const send = fetchOnNodeHttp();
    expect(await (await send(`${target.url}/`, { headers: { 'X-One': '1' } })).text()).toBe('1 | undefined');
    const pairs: [string, string][] = [
      ['X-Many', 'a'],
      ['x-many', 'b'],
      ['X-One', '1'],
    ];
    expect(await (await send(`${target.url}/`, { headers: pairs })).text()).toBe('1 | a, b');
  });

  it('answers an error status with ok false and its text', async () => {
    const target = await serve((_req, res) => {
      res.writeHead(429, { 'retry-after-ms': '10' });
      res.end('slow down 🐢');
    });
    const response = await fetchOnNodeHttp()(`${target.url}/`);
    expect(response.ok).toBe(false);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after-ms')).toBe('10');
    expect(await response.text()).toBe('slow down 🐢');
  });

  it('hands over the body as it arrives, and an abort mid-body ends its reading with an AbortError', async () => {
    const target = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const controller = new AbortController();
    const response = await fetchOnNodeHttp()(`${target.url}/stream`, { signal: controller.signal });
    const chunks: string[] = [];
    const reading = (async () => {
      for await (const chunk of response.body as unknown as AsyncIterable<Buffer>) {
        chunks.push(chunk.toString());
        controller.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(chunks).toEqual(['data: 1\n\n']);
  });

  it('rejects when nothing answers, and leaves a body it cannot send as bytes to the global fetch', async () => {
    const closed = await serve(() => undefined);
    const port = new URL(closed.url).port;
    await closed.close();
    await expect(fetchOnNodeHttp()(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    const target = await serve((req, res, body) => res.end(`${req.headers['content-type']} ${body}`));
    const form = new URLSearchParams({ a: '1', b: 'two' });
    const response = await fetchOnNodeHttp()(`${target.url}/form`, { method: 'POST', body: form });
    expect(await response.text()).toBe('application/x-www-form-urlencoded;charset=UTF-8 a=1&b=two');
  });

  it('serves the OpenAI SDK a streamed completion, read to the end', async () => {
    const target = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const delta of ['Hel', 'lo']) {
        res.write(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: delta }, finish_reason: null }] })}\n\n`,
        );
      }
      res.end('data: [DONE]\n\n');
    });
    const client = new OpenAI({ apiKey: 'k', baseURL: `${target.url}/v1`, fetch: fetchOnNodeHttp() });
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello');
  });

  describe('with caps, as the model SDKs get it', () => {
    const CAPS = { maxEventBytes: 64, maxAnswerBytes: 256, maxErrorBytes: 32 };
    function cappedFetch(): typeof fetch {
      const http = createNodeHttp();
      onTestFinished(() => http.close());
      return nodeHttpFetch(http, CAPS);
    }

    it('reads an error body up to maxErrorBytes and says the rest was cut, leaving it unread', async () => {
      const target = await serve((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(`{"error":{"message":"${'x'.repeat(10_000)}"}}`);
      });
      const text = await (await cappedFetch()(`${target.url}/`)).text();
      expect(text).toBe(`{"error":{"message":"${'x'.repeat(11)}\n… (cut: the body went on past 32 bytes)`);
    });

    it('reads a short error body whole', async () => {
      const target = await serve((_req, res) => {
        res.writeHead(400);
        res.end('{"error":{"message":"no"}}');
      });
      expect(await (await cappedFetch()(`${target.url}/`)).json()).toEqual({ error: { message: 'no' } });
    });

    it('fails a whole body past maxAnswerBytes', async () => {
      const target = await serve((_req, res) => res.end('x'.repeat(1000)));
      await expect((await cappedFetch()(`${target.url}/`)).text()).rejects.toMatchObject({
        name: 'BodyCapError',
        cap: 'answer',
        limit: 256,
      });
    });

    it('ends the OpenAI SDK stream with the cap error at an event that passes maxEventBytes', async () => {
      const target = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: {"pad":"${'y'.repeat(200)}"}\n\n`);
      });
      const client = new OpenAI({ apiKey: 'k', baseURL: `${target.url}/v1`, fetch: cappedFetch(), maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
      const reading = (async () => {
        for await (const _chunk of stream);
      })();
      await expect(reading).rejects.toMatchObject({ name: 'BodyCapError', cap: 'event', limit: 64 });
    });
  });
});
