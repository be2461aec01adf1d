import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { z } from 'zod';

/**
 * Benchmark helpers (fake servers, load clients) run in processes of their own, so the CPU the bridge
 * spends is all that the measuring process spends. This is the parent's side of a tiny request /
 * reply protocol over the IPC channel of `child_process.fork`; `serveBenchCalls` is the child's.
 */

const ChildMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ready') }),
  z.object({ kind: z.literal('result'), id: z.number(), value: z.unknown() }),
  z.object({ kind: z.literal('failure'), id: z.number(), message: z.string() }),
]);

const ParentMessageSchema = z.object({
  kind: z.literal('call'),
  id: z.number(),
  method: z.string(),
  params: z.unknown(),
});

/** CPU time a process has used, in microseconds, as `process.cpuUsage()` reports it. */
export const CpuUsageSchema = z.object({ user: z.number(), system: z.number() });
export type CpuUsage = z.infer<typeof CpuUsageSchema>;

/** A running helper process. */
export interface BenchChild {
  readonly name: string;
  /** Calls `method` in the child and validates its answer with `schema`; rejects with the child's error message. */
  call<S extends z.ZodType>(method: string, params: unknown, schema: S): Promise<z.output<S>>;
  /** The child's own CPU time so far. */
  cpuUsage(): Promise<CpuUsage>;
  /** Disconnects; the child closes what it serves and exits. Resolves once it has exited. */
  stop(): Promise<void>;
}

/** tsx for the helper's TypeScript, and the bridge's modules from dist/ (see compiled-bridge.mjs). */
const EXEC_ARGV = ['--import', import.meta.resolve('tsx'), '--import', import.meta.resolve('./compiled-bridge.mjs')];

/**
 * Forks `entry` (a TypeScript module under `bench/`, run through tsx, the bridge it imports from
 * dist/) and resolves once it reports ready. A child that exits before that rejects with its exit code; its stderr goes to ours.
 */
export async function startBenchChild(name: string, entry: URL, args: string[] = []): Promise<BenchChild> {
  const child: ChildProcess = fork(entry, args, {
    execArgv: EXEC_ARGV,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let exited = false;
  const exit = once(child, 'exit');
  void exit.then(() => {
    exited = true;
    for (const waiter of pending.values())
      waiter.reject(new Error(`The ${name} process exited while a call was pending.`));
    pending.clear();
  });

  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`The ${name} process exited with code ${code} before it was ready; see its output above.`)),
    );
    child.on('message', (raw) => {
      const message = ChildMessageSchema.parse(raw);
      if (message.kind === 'ready') {
        resolve();
        return;
      }
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.kind === 'result') waiter?.resolve(message.value);
      else waiter?.reject(new Error(`${name}: ${message.message}`));
    });
  });
  await ready;

  const call = async <S extends z.ZodType>(method: string, params: unknown, schema: S): Promise<z.output<S>> => {
    if (exited) throw new Error(`The ${name} process has exited; it cannot answer ${method}.`);
    const id = nextId++;
    const answer = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
    child.send({ kind: 'call', id, method, params });
    return schema.parse(await answer);
  };

  return {
    name,
    call,
    cpuUsage: () => call('cpuUsage', null, CpuUsageSchema),
    async stop() {
      if (!exited && child.connected) child.disconnect();
      await exit;
    },
  };
}

/** What a child serves: one handler per method, each given the raw params (validate them). */
export type BenchHandlers = Record<string, (params: unknown) => unknown>;

/**
 * The child's side: answers the parent's calls with `handlers` (plus `cpuUsage`), reports ready, and
 * on disconnect (the parent stopped it, or died) runs `close` and exits, so no helper outlives a run.
 */
export function serveBenchCalls(handlers: BenchHandlers, close: () => Promise<void> = async () => undefined): void {
  const send = (message: unknown): void => {
    if (process.connected) process.send?.(message);
  };
  const all: BenchHandlers = { ...handlers, cpuUsage: () => process.cpuUsage() };
  process.on('message', (raw) => {
    const message = ParentMessageSchema.parse(raw);
    const handler = all[message.method];
    if (!handler) {
      send({ kind: 'failure', id: message.id, message: `no method "${message.method}"` });
      return;
    }
    Promise.resolve()
      .then(() => handler(message.params))
      .then(
        (value) => send({ kind: 'result', id: message.id, value: value ?? null }),
        (error: unknown) =>
          send({ kind: 'failure', id: message.id, message: error instanceof Error ? error.message : String(error) }),
      );
  });
  process.once('disconnect', () => {
    void close().finally(() => process.exit(0));
  });
  send({ kind: 'ready' });
}
