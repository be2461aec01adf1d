import { ApiError, ConnectionError } from '../client/client-errors.js';
import { createClient } from '../client/create-client.js';
import type { RunsApi } from '../client/runs-api.js';
import { describeFailure } from '../http-client/network-failure.js';
import type { Runbridge } from '../main.js';
import { isTerminalEvent, type RunEvent, RunEventSchema } from '../protocol/run-events.js';
import type { RunRequestInput } from '../protocol/run-request.js';
import { parseFlags } from './parse-flags.js';
import { RunRenderer } from './run-renderer.js';
import { TerminalPrompts } from './terminal-prompts.js';

const HELP = `runbridge run — start one run and render its events live

Options:
  --env NAME            ORS environment (default: RUNBRIDGE_DEFAULT_ENV, arith)
  --split NAME          task split (default: the environment's first split, also with --index alone)
  --index N             task index (default 0)
  --task-spec JSON      a task given whole instead of split/index
  --model REF           provider:name, e.g. offline, openai:gpt-4.1-mini (default: RUNBRIDGE_MODEL)
  --input TEXT          an extra user turn after the environment's prompt
  --instructions TEXT   system prompt
  --max-turns N         default 20
  --temperature X       sampling temperature
  --seed N              sampling seed
  --server URL          use a running bridge instead of starting one in this process
  --verbose             also print what the bridge in this process logs, whole errors included
  --api-key KEY         bearer key for --server (default: RUNBRIDGE_API_KEY)
  --json                print the raw events as JSON lines instead of rendering them
  --approve             ask before every tool call runs: y(es), n(o, with a reason) or e(dit the arguments)
  --approval-timeout S  seconds a decision may take before the call is denied (default 600)
  --chat                chat mode: after each answer, type the next message (/exit or Ctrl-D ends the chat)
  --input-timeout S     seconds chat mode waits for a message before the run completes (default 600)

Exit code: 0 when the run completed (or you ended the chat), 1 when it failed, 130 when it was cancelled
(Ctrl-C cancels it). When stdout closes before the run ends (runbridge run --json | head -2), the run is
cancelled and the command ends quietly with 0, as Unix tools do.`;

/** `runbridge run`: starts a run (on an in-process bridge unless `--server`) and renders it live. */
export async function runCommand(args: string[]): Promise<number> {
  const { values } = parseFlags({
    args,
    options: {
      env: { type: 'string' },
      split: { type: 'string' },
      index: { type: 'string' },
      'task-spec': { type: 'string' },
      model: { type: 'string' },
      input: { type: 'string' },
      instructions: { type: 'string' },
      'max-turns': { type: 'string' },
      temperature: { type: 'string' },
      seed: { type: 'string' },
      server: { type: 'string' },
      'api-key': { type: 'string' },
      json: { type: 'boolean' },
      approve: { type: 'boolean' },
      'approval-timeout': { type: 'string' },
      chat: { type: 'boolean' },
      'input-timeout': { type: 'string' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const request = buildRequest(values);
  // A reader that went away (EPIPE, `| head`) is no failure of the command: stop following the run and
  // end quietly. Heard until the process ends, since the error may come after the last write.
  const stdoutClosed = new AbortController();
  process.stdout.on('error', () => stdoutClosed.abort());

  let bridge: Runbridge | undefined;
  /** Writes out what the in-process bridge still holds of its log (with --verbose). */
  let drainLog = async () => {};
  if (values.server === undefined) {
    // The server, its store and its signals are loaded only to run one here: with --server this
    // command is a client of a bridge elsewhere, and starts as fast as one.
    const [{ loadConfig }, { startRunbridge }, { createLogger, LOG_DRAIN_MS }, { silentLogger }] = await Promise.all([
      import('../config/index.js'),
      import('../main.js'),
      import('../telemetry/create-logger.js'),
      import('../telemetry/logger.js'),
    ]);
    const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', RUNBRIDGE_API_KEYS: '' });
    // What goes wrong reaches the person as the run's own answer, in one line; the bridge's log adds to
    // it only when asked for.
    const verbose = values.verbose === true || config.logLevel === 'debug';
    const logger = verbose
      ? createLogger({ level: 'debug', format: 'pretty', bufferBytes: config.logBufferBytes })
      : undefined;
    if (logger) drainLog = () => logger.drain(LOG_DRAIN_MS);
    try {
      bridge = await startRunbridge({ config, logger: logger ?? silentLogger });
    } catch (error) {
      // The log's lines go before the one line that says what went wrong.
      await drainLog();
      throw error;
    }
  }
  const base = values.server ?? bridge!.url;
  const apiKey = values['api-key'] || process.env.RUNBRIDGE_API_KEY || undefined;
  const runs = createClient({ baseUrl: base, apiKey, reconnect: { retries: 4 } }).runs;
  try {
    const created = await runs.create(request).catch((error: unknown) => {
      throw new Error(refusal(error, base, values.server));
    });
    const asks = { approve: values.approve === true, chat: values.chat === true };
    const ended = await follow(runs, created.run_id, values.json === true, asks, stdoutClosed.signal);
    if (ended.kind !== 'terminal') return 0;
    const { terminal } = ended;
    return terminal.event === 'run.completed' ? 0 : terminal.event === 'run.cancelled' ? 130 : 1;
  } finally {
    await bridge?.shutdown();
    await drainLog();
  }
}

/** How following a run ended: its terminal event, the person ending the chat, or stdout closing under it. */
type Followed = { kind: 'terminal'; terminal: RunEvent } | { kind: 'left' } | { kind: 'stdout_closed' };

/**
 * What to tell the person when the run was not started: where the bridge was looked for when nothing
 * answered; else the bridge's own message, and for a bridge of their own (`--server`) the status; a
 * missing key is said in the CLI's terms, not HTTP's.
 */
function refusal(error: unknown, base: string, server: string | undefined): string {
  if (error instanceof ConnectionError) {
    return (
      `cannot reach the bridge at ${base} (${describeFailure(error.cause)}). Start one there with "runbridge serve", ` +
      'or leave out --server to run one in this process.'
    );
  }
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (server === undefined) return error.message;
  if (error.status === 401) {
    return `the bridge at ${server} wants an API key: pass --api-key KEY, or set RUNBRIDGE_API_KEY.`;
  }
  return `the bridge at ${server} refused the run (${error.status}): ${error.message}`;
}

/**
 * Streams the run's events to stdout until its terminal event; Ctrl-C asks the server to cancel.
 * With `asks`, a person answers in the terminal what the run waits for (see {@link TerminalPrompts}).
 * A person who ended the chat (`left`), or a stdout that closed (`| head`: no one reads any more),
 * ends it early, the run cancelled for that.
 */
async function follow(
  runs: RunsApi,
  runId: string,
  json: boolean,
  asks: { approve: boolean; chat: boolean },
  stdoutClosed: AbortSignal,
): Promise<Followed> {
  const sendCancel = () => runs.cancel(runId).catch(() => undefined);
  const requestCancel = () => void sendCancel();
  const cancel = () => {
    process.stderr.write('\ncancelling… (Ctrl-C again to quit at once)\n');
    process.once('SIGINT', () => process.exit(130));
    requestCancel();
  };
  process.once('SIGINT', cancel);
  let interrupted = false;
  const prompts =
    asks.approve || asks.chat
      ? new TerminalPrompts({
          input: process.stdin,
          output: process.stdout,
          runId,
          ...asks,
          runs,
          // At a prompt the terminal hands Ctrl-C to the prompt rather than as a signal.
          onInterrupt: () => {
            if (interrupted) process.exit(130);
            interrupted = true;
            process.off('SIGINT', cancel);
            cancel();
          },
          onLeave: requestCancel,
        })
      : undefined;
  const renderer = new RunRenderer(process.stdout.isTTY === true && !process.env.NO_COLOR);
  try {
    // The client resumes a dropped stream after the last event it gave: the log is the source of truth, not the socket.
    for await (const received of runs.events(runId, { signal: stdoutClosed })) {
      const event = RunEventSchema.parse(received);
      process.stdout.write(json ? `${JSON.stringify(received)}\n` : renderer.render(event));
      if (isTerminalEvent(event)) return prompts?.left ? { kind: 'left' } : { kind: 'terminal', terminal: event };
      await prompts?.answer(event);
    }
    throw new Error("the run's event stream ended before the run did");
  } catch (error) {
    if (!stdoutClosed.aborted) throw error;
    // Nobody reads what the run does any more: it is cancelled, not left running unseen.
    await sendCancel();
    return { kind: 'stdout_closed' };
  } finally {
    process.off('SIGINT', cancel);
    prompts?.close();
  }
}

function buildRequest(values: Record<string, string | boolean | undefined>): RunRequestInput {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const number = (name: string) => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    const parsed = Number(raw);
    if (!Number.isFinite(parsed)) throw new Error(`--${name} must be a number, got "${raw}"`);
    return parsed;
  };
  const spec = text('task-spec');
  const split = text('split');
  const index = number('index');
  let task: RunRequestInput['task'];
  if (spec !== undefined) {
    try {
      task = { spec: JSON.parse(spec) as Record<string, unknown> };
    } catch {
      throw new Error('--task-spec must be a JSON object');
    }
  } else if (split !== undefined || index !== undefined) {
    // Either may be left out: the server takes the environment's first split and index 0.
    task = { ...(split === undefined ? {} : { split }), ...(index === undefined ? {} : { index }) };
  }
  const temperature = number('temperature');
  const seed = number('seed');
  const sampling = temperature === undefined && seed === undefined ? undefined : { temperature, seed };
  const approvalTimeout = number('approval-timeout');
  const inputTimeout = number('input-timeout');
  if (approvalTimeout !== undefined && values.approve !== true) throw new Error('--approval-timeout needs --approve');
  if (inputTimeout !== undefined && values.chat !== true) throw new Error('--input-timeout needs --chat');
  return {
    env: text('env'),
    task,
    model: text('model'),
    input: text('input'),
    instructions: text('instructions'),
    max_turns: number('max-turns'),
    sampling,
    ...(values.approve === true
      ? { approval: { tools: '*', ...(approvalTimeout === undefined ? {} : { timeout_seconds: approvalTimeout }) } }
      : {}),
    ...(values.chat === true
      ? { await_input: true, ...(inputTimeout === undefined ? {} : { input_timeout_seconds: inputTimeout }) }
      : {}),
  };
}
