import { type Message, SendMessageRequest, type StreamResponse, type Task, taskStateToJSON } from '@a2a-js/sdk';
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { createParser } from 'eventsource-parser';

/** A `fetch` sending `Authorization: Bearer <key>` (the card's GET included). */
export function authFetch(key: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
}

/** The SDK's v1.0 client for the bridge at `url`, found by its card, calling with `key`. */
export async function a2aClient(url: string, key: string): Promise<Client> {
  const fetchImpl = authFetch(key);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      preferredTransports: ['JSONRPC'],
    }),
  );
  return factory.createFromUrl(url);
}

/** The SDK's v0.3 client (its compat transport) for the bridge at `url`, calling with `key`. */
export async function legacyClient(url: string, key: string): Promise<Client> {
  const card = await new DefaultAgentCardResolver().resolve(url);
  return new Client(new LegacyJsonRpcTransport({ endpoint: `${url}/v1/a2a`, fetchImpl: authFetch(key) }), card);
}

/** A user message as the wire writes it (ProtoJSON): `parts` of `{text}` or `{data}`. */
export function userMessage(
  parts: Array<{ text: string } | { data: unknown }>,
  extra: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {},
): SendMessageRequest {
  const { returnImmediately, ...ids } = extra;
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...ids },
    ...(returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

export function isTask(result: Message | Task): result is Task {
  return !('messageId' in result);
}

/** The task a send answered (it throws when it answered a message). */
export function taskOf(result: Message | Task): Task {
  if (!isTask(result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

export function stateOf(task: Task): string {
  return taskStateToJSON(task.status!.state);
}

/** The text of a task's artifact `answer`. */
export function answerOf(task: Task): string {
  const artifact = task.artifacts.find((candidate) => candidate.artifactId === 'answer');
  return (artifact?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** The data parts of a status message. */
export function dataPartsOf(message: Message | undefined): Array<Record<string, unknown>> {
  return (message?.parts ?? []).flatMap((part) =>
    part.content?.$case === 'data' ? [part.content.value as Record<string, unknown>] : [],
  );
}

/** Every event of a stream, to its end. */
export async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The states of a stream's status updates, in order. */
export function statesOf(events: StreamResponse[]): string[] {
  return events.flatMap((event) =>
    event.payload?.$case === 'statusUpdate' ? [taskStateToJSON(event.payload.value.status!.state)] : [],
  );
}

/** One SSE frame of a raw stream: its `id:` (when it has one) and its JSON data. */
export interface RawFrame {
  id: string | undefined;
  data: Record<string, unknown>;
}

/** POSTs a JSON-RPC call to the bridge's endpoint as raw HTTP. */
export function rpc(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  init: { signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(`${url}/v1/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

/**
 * Reads the SSE frames of `response`, stopping after `limit` frames (the connection then dropped by
 * the caller) or at the end of the stream.
 */
export async function readFrames(response: Response, limit = Number.POSITIVE_INFINITY): Promise<RawFrame[]> {
  const frames: RawFrame[] = [];
  const parser = createParser({
    onEvent: (event) => frames.push({ id: event.id, data: JSON.parse(event.data) as Record<string, unknown> }),
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (frames.length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return frames.slice(0, limit);
}

/** A JSON-RPC `SendStreamingMessage` / `message/stream` body starting a run of `run`. */
export function streamingSend(method: string, id: number | string, data: Record<string, unknown>, v03 = false) {
  const part = v03 ? { kind: 'data', data } : { data };
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      message: {
        messageId: crypto.randomUUID(),
        role: v03 ? 'user' : 'ROLE_USER',
        parts: [part],
        ...(v03 ? { kind: 'message' } : {}),
      },
    },
  };
}
