import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pythonJson, referenceCallFrames, referenceFrame, referencePing } from './reference-sse-bytes.js';
import {
  arithEnvironment,
  type ScriptedEnvironment,
  type ScriptedTool,
  type ScriptedToolReply,
} from './scripted-ors-environment.js';

/** How the fake ORS server behaves; the defaults mimic the reference server. */
export interface ScriptedOrsServerOptions {
  /** Served environments by name; default `{ arith: arithEnvironment() }`. */
  environments?: Record<string, ScriptedEnvironment>;
  /** `/create_session` answers SSE (`task_id` + `end`, the reference) or JSON `{"sid"}`; default `sse`. */
  createSessionForm?: 'sse' | 'json';
  /** False makes `/{env}/task_tools` answer 404, like a server that predates task tools; default true. */
  taskTools?: boolean;
  /** Period of the `: ping` comment on a running call's stream; 0 disables it; default 10 000. */
  pingIntervalMs?: number;
  /** Write call streams in pieces of this many bytes (splitting UTF-8 sequences); default: whole frames. */
  writeChunkBytes?: number;
  /** `/create` answers 422 quoting the request body, as FastAPI's validation errors do. */
  rejectCreateWith422?: boolean;
  /** False forgets every call at once, as if its 60 s cache had expired: reconnects get `unknown task_id`. */
  taskCache?: boolean;
}

/** One request as the server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  sid: string | undefined;
  body: unknown;
}

interface Session {
  state: 'minted' | 'active' | 'deleted';
  env?: string;
  task?: Record<string, unknown>;
}

interface CallTask {
  frames: Promise<string[]>;
}

const NOT_FOUND = { detail: 'Not Found' };

/**
 * A fake ORS server on loopback that behaves like the ORS reference server where docs/protocol.md §5 records it
 * (SSE `create_session`, CRLF frames, `: ping - <ts>` comments, 4096-character pieces, task cache for
 * reconnects, `unknown task_id` errors, 404/410 for unknown/deleted sessions) and records every
 * request and every tool execution, so tests can assert what really happened.
 */
export class ScriptedOrsServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: http.Server;
  readonly #options: Required<Omit<ScriptedOrsServerOptions, 'writeChunkBytes'>> & { writeChunkBytes?: number };
  readonly #sessions = new Map<string, Session>();
  readonly #tasks = new Map<string, CallTask>();
  readonly #executions = new Map<string, number>();
  readonly #events = new EventEmitter();
  #url = '';
  #connections = 0;

  private constructor(options: ScriptedOrsServerOptions) {
    this.#options = {
      environments: options.environments ?? { arith: arithEnvironment() },
      createSessionForm: options.createSessionForm ?? 'sse',
      taskTools: options.taskTools ?? true,
      pingIntervalMs: options.pingIntervalMs ?? 10_000,
      rejectCreateWith422: options.rejectCreateWith422 ?? false,
      taskCache: options.taskCache ?? true,
      ...(options.writeChunkBytes === undefined ? {} : { writeChunkBytes: options.writeChunkBytes }),
    };
    this.#server = http.createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.#json(res, 500, { detail: String(error) });
        else res.destroy();
      });
    });
    this.#server.on('connection', () => this.#connections++);
  }

  /** Starts a server on `127.0.0.1`, on a free port. */
  static async start(options: ScriptedOrsServerOptions = {}): Promise<ScriptedOrsServer> {
    const server = new ScriptedOrsServer(options);
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    server.#url = `http://127.0.0.1:${(server.#server.address() as AddressInfo).port}`;
    return server;
  }

  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  get url(): string {
    return this.#url;
  }

  /** TCP connections accepted so far. */
  connections(): number {
    return this.#connections;
  }

  /** How many times tool `name` has started running. */
  executions(name: string): number {
    return this.#executions.get(name) ?? 0;
  }

  /** Requests whose path is `path`. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Resolves with the first request (already seen or still to come) that `predicate` accepts. */
  waitForRequest(predicate: (request: RecordedRequest) => boolean): Promise<RecordedRequest> {
    const seen = this.requests.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const listener = (request: RecordedRequest): void => {
        if (!predicate(request)) return;
        this.#events.off('request', listener);
        resolve(request);
      };
      this.#events.on('request', listener);
    });
  }

  /** Resolves once tool `name` has started `count` times in total. */
  waitForExecution(name: string, count = 1): Promise<void> {
    if (this.executions(name) >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const listener = (tool: string): void => {
        if (tool !== name || this.executions(name) < count) return;
        this.#events.off('execution', listener);
        resolve();
      };
      this.#events.on('execution', listener);
    });
  }

  /** Session ids that were minted or created and not yet deleted with `/delete`. */
  openSessions(): string[] {
    return [...this.#sessions].filter(([, session]) => session.state !== 'deleted').map(([sid]) => sid);
  }

  /** Forgets session `sid`, as the reference does after 15 idle minutes: it answers 404 from now on. */
  expireSession(sid: string): void {
    this.#sessions.delete(sid);
  }

  /** Adds (or replaces) tool `name` of environment `env`. */
  defineTool(env: string, name: string, tool: Omit<ScriptedTool, 'spec'> & { spec?: ScriptedTool['spec'] }): void {
    const environment = this.#options.environments[env];
    if (!environment) throw new Error(`No scripted environment ${env}`);
    environment.tools[name] = { spec: { name, description: `${name} (scripted)`, input_schema: null }, ...tool };
  }

  /** Stops listening and drops every connection, held or not. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const sidHeader = req.headers['x-session-id'];
    const sid = typeof sidHeader === 'string' ? sidHeader : undefined;
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      this.#record({ method, path, sid, body: raw });
      this.#json(res, 422, { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }] });
      return;
    }
    this.#record({ method, path, sid, body });
    const fields = (body ?? {}) as Record<string, unknown>;

    if (method === 'GET' && path === '/health') return this.#json(res, 200, { status: 'ok' });
    if (method === 'GET' && path === '/list_environments') {
      return this.#json(res, 200, Object.keys(this.#options.environments));
    }
    if (method === 'POST' && path === '/create_session') return this.#createSession(res);
    if (method === 'POST' && ['/create', '/ping', '/delete', '/delete_session'].includes(path)) {
      if (sid === undefined) return this.#json(res, 400, { detail: 'Missing X-Session-ID header' });
      if (path === '/create') return this.#create(res, sid, fields);
      if (path === '/delete') return this.#delete(res, sid);
      if (path === '/delete_session') {
        const session = this.#sessions.get(sid);
        if (session) session.state = 'deleted';
        return this.#json(res, 200, { sid });
      }
      const session = this.#sessions.get(sid);
      if (!session || session.state === 'minted') return this.#json(res, 404, { detail: 'Session not found' });
      if (session.state === 'deleted') return this.#json(res, 410, { detail: 'Session was deleted' });
      return this.#json(res, 200, { status: 'ok' });
    }

    const match = /^\/([^/]+)\/([a-z_]+)$/.exec(path);
    const envName = match ? decodeURIComponent(match[1] ?? '') : '';
    const action = match?.[2] ?? '';
    if (['prompt', 'task_tools', 'call'].includes(action)) {
      if (sid === undefined) return this.#json(res, 400, { detail: 'Missing X-Session-ID header' });
      if (action === 'task_tools' && !this.#options.taskTools) return this.#json(res, 404, NOT_FOUND);
      const session = this.#sessions.get(sid);
      if (!session || session.state === 'minted') return this.#json(res, 404, { detail: 'Session not found' });
      if (session.state === 'deleted') return this.#json(res, 410, { detail: 'Session was deleted' });
      // As the reference does, the session's environment wins over the path segment.
      const environment = this.#options.environments[session.env ?? ''] as ScriptedEnvironment;
      const task = session.task ?? {};
      if (action === 'prompt' && method === 'GET') return this.#json(res, 200, environment.prompt(task));
      if (action === 'task_tools' && method === 'GET') {
        return this.#json(res, 200, { tools: Object.values(environment.tools).map((tool) => tool.spec) });
      }
      if (action === 'call' && method === 'POST') return this.#call(res, sid, environment, task, fields);
      return this.#json(res, 405, { detail: 'Method Not Allowed' });
    }

    const environment = this.#options.environments[envName];
    if (!match || !['tools', 'splits', 'tasks', 'num_tasks', 'task', 'task_range'].includes(action)) {
      return this.#json(res, 404, NOT_FOUND);
    }
    if (!environment) return this.#json(res, 404, { detail: `Environment ${envName} not found` });
    if (action === 'tools') {
      const shared = Object.values(environment.tools).filter((tool) => !tool.taskOnly);
      return this.#json(res, 200, { tools: shared.map((tool) => tool.spec) });
    }
    if (action === 'splits') return this.#json(res, 200, environment.splits);
    const tasks = environment.tasks[String(fields.split)];
    if (!tasks) return this.#json(res, 400, { detail: `Invalid split: ${String(fields.split)}` });
    if (action === 'tasks') return this.#json(res, 200, { tasks, env_name: envName });
    if (action === 'num_tasks') return this.#json(res, 200, { num_tasks: tasks.length });
    if (action === 'task') {
      const task = tasks[Number(fields.index)];
      if (!Number.isInteger(fields.index) || !task) return this.#json(res, 400, { detail: 'Invalid index' });
      return this.#json(res, 200, { task });
    }
    const resolve = (value: unknown, fallback: number): number => {
      if (typeof value !== 'number') return fallback;
      return value < 0 ? Math.max(0, tasks.length + value) : Math.min(value, tasks.length);
    };
    this.#json(res, 200, { tasks: tasks.slice(resolve(fields.start, 0), resolve(fields.stop, tasks.length)) });
    return;
  }

  #createSession(res: http.ServerResponse): void {
    const sid = randomUUID();
    this.#sessions.set(sid, { state: 'minted' });
    if (this.#options.createSessionForm === 'json') {
      this.#json(res, 200, { sid });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    res.end(referenceFrame('task_id', sid) + referenceFrame('end', ''));
  }

  #create(res: http.ServerResponse, sid: string, fields: Record<string, unknown>): void {
    if (this.#options.rejectCreateWith422) {
      this.#json(res, 422, { detail: [{ type: 'value_error', loc: ['body'], msg: 'Rejected', input: fields }] });
      return;
    }
    const existing = this.#sessions.get(sid);
    if (existing?.state === 'active') {
      this.#json(res, 400, { detail: 'Session already exists' });
      return;
    }
    const envName = typeof fields.env_name === 'string' ? fields.env_name : Object.keys(this.#options.environments)[0];
    const environment = this.#options.environments[envName ?? ''];
    if (!environment) {
      this.#json(res, 404, { detail: `Environment ${String(envName)} not found` });
      return;
    }
    let task: Record<string, unknown> | undefined;
    if (fields.task_spec !== undefined && fields.split === undefined) {
      task = fields.task_spec as Record<string, unknown>;
    } else if (fields.task_spec === undefined && typeof fields.split === 'string') {
      task = environment.tasks[fields.split]?.[Number(fields.index)];
    }
    if (!task) {
      this.#json(res, 400, { detail: 'Provide task_spec, or a valid split and index' });
      return;
    }
    this.#sessions.set(sid, { state: 'active', env: envName ?? '', task });
    this.#json(res, 200, { sid });
  }

  #delete(res: http.ServerResponse, sid: string): void {
    const session = this.#sessions.get(sid);
    if (session) session.state = 'deleted';
    this.#json(res, 200, { sid });
  }

  async #call(
    res: http.ServerResponse,
    sid: string,
    environment: ScriptedEnvironment,
    task: Record<string, unknown>,
    fields: Record<string, unknown>,
  ): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    // One writer at a time: a ping written in pieces must not interleave with a result frame.
    let queue = Promise.resolve();
    const write = (text: string): Promise<void> => (queue = queue.then(() => this.#write(res, text)));
    const requested = typeof fields.task_id === 'string' ? fields.task_id : undefined;
    if (requested !== undefined) {
      const known = this.#tasks.get(requested);
      if (!known) {
        await write(referenceFrame('error', 'unknown task_id'));
        res.end();
        return;
      }
      await write(referenceFrame('task_id', requested));
      const stopPings = this.#startPings(res, write);
      const frames = await known.frames;
      stopPings();
      for (const frame of frames) await write(frame);
      res.end();
      return;
    }
    const taskId = randomBytes(16).toString('hex');
    const pinged = new EventEmitter();
    const stopPings = this.#startPings(res, write, () => pinged.emit('ping'));
    await write(referenceFrame('task_id', taskId));
    const name = String(fields.name);
    const tool = environment.tools[name];
    const input = (fields.input ?? {}) as Record<string, unknown>;
    const frames = (async (): Promise<string[]> => {
      if (!tool)
        return referenceCallFrames(taskId, pythonJson({ ok: false, error: `Tool not found: ${name}` })).slice(1);
      this.#executions.set(name, this.executions(name) + 1);
      this.#events.emit('execution', name);
      let reply: ScriptedToolReply;
      try {
        reply = await tool.run(input, {
          sid,
          task,
          untilPinged: () => new Promise((resolve) => pinged.once('ping', () => resolve())),
        });
      } catch (error) {
        return [referenceFrame('error', error instanceof Error ? error.message : String(error))];
      }
      return referenceCallFrames(taskId, resultJson(reply)).slice(1);
    })();
    if (this.#options.taskCache) this.#tasks.set(taskId, { frames });
    const result = await frames;
    stopPings();
    for (const frame of result) await write(frame);
    res.end();
  }

  /** Writes `: ping - <ts>` every `pingIntervalMs` until the returned stop function runs or `res` closes. */
  #startPings(res: http.ServerResponse, write: (text: string) => Promise<void>, onPing?: () => void): () => void {
    if (this.#options.pingIntervalMs <= 0) return () => undefined;
    const interval = setInterval(() => {
      void write(referencePing()).then(() => onPing?.());
    }, this.#options.pingIntervalMs);
    const stop = (): void => clearInterval(interval);
    res.on('close', stop);
    return stop;
  }

  /** Writes `text`, in `writeChunkBytes` pieces when set; a closed response swallows it (the client left). */
  async #write(res: http.ServerResponse, text: string): Promise<void> {
    if (res.destroyed || res.writableEnded) return;
    const bytes = Buffer.from(text, 'utf8');
    const size = this.#options.writeChunkBytes ?? bytes.length;
    for (let start = 0; start < bytes.length; start += size) {
      if (res.destroyed) return;
      res.write(bytes.subarray(start, start + size));
      // Let each piece leave on its own, so the client really sees split UTF-8 sequences.
      if (size < bytes.length) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  #record(request: RecordedRequest): void {
    this.requests.push(request);
    this.#events.emit('request', request);
  }
}

function resultJson(reply: ScriptedToolReply): string {
  if ('rawEnd' in reply) return reply.rawEnd;
  if (!reply.ok) return pythonJson({ ok: false, error: reply.error });
  const { blocks, metadata = null, reward = null, finished = false } = reply.output;
  return pythonJson({ ok: true, output: { blocks, metadata, reward, finished } });
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
