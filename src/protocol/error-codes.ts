import { z } from 'zod';
import { CONFIRM_WAIT_SECONDS } from './confirm-wait.js';

/**
 * Where a code shows. `http`: the error body of an HTTP answer (`{"error": {code, message}}`,
 * docs/api.md). `run`: how a run ended — the `code` of `run.failed`, and the `error.code` of the run's
 * snapshot and of its rollout record. `cli`: an error of the rollout commands' own (`runbridge rollout`,
 * `rollout export`, and `generateRollouts` behind the first), which also stop with the codes a run's
 * request can get (`invalid_task`, `unknown_env`, `ors_unavailable`, …).
 */
export type ErrorCodeWhere = 'http' | 'run' | 'cli';

/** What the table says of one code. */
interface ErrorCodeEntry {
  /**
   * The HTTP status an answer with this code has. A code that never answers a request keeps the status
   * its error carries, which still decides a command's exit code (400 and 404 are the caller's mistake).
   */
  readonly status: number;
  /** Where the code shows (see {@link ErrorCodeWhere}). */
  readonly where: readonly ErrorCodeWhere[];
  /** When it is given, in one line of Markdown; the docs' error tables show it. */
  readonly meaning: string;
}

/**
 * Every error code of runbridge: the one place a code is defined. The server throws with these codes
 * (a code not listed here does not compile); the error tables of docs/api.md and docs/rollouts.md
 * (`npm run docs`) and the `enum` of the OpenAPI document's `ErrorBody` are generated from this
 * table, and `runbridge/client` exports the union of its keys. Codes are snake_case and stable across
 * releases; a new one is added here first.
 *
 * The codes of the ORS server's own answers are not here: that is another API, whose bodies carry
 * only a `detail` (src/ors/server/ors-server-error-codes.ts).
 */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    where: ['http'],
    meaning:
      "the body, query or a header fails validation (`details` lists each field); a request Koa itself refuses keeps Koa's 4xx",
  },
  invalid_json: { status: 400, where: ['http'], meaning: 'the body is not JSON' },
  unsupported_media_type: {
    status: 415,
    where: ['http'],
    meaning: 'the body is not sent as JSON (without API keys: any POST, an empty one included)',
  },
  body_too_large: { status: 413, where: ['http'], meaning: 'the body is larger than `RUNBRIDGE_MAX_BODY_BYTES`' },
  malformed_request: {
    status: 400,
    where: ['http'],
    meaning: "Node's HTTP parser refused the request (a control character in a header, …)",
  },
  headers_too_large: { status: 431, where: ['http'], meaning: 'the request line and headers pass 16 KiB' },
  request_timeout: {
    status: 408,
    where: ['http'],
    meaning:
      'the request was not received in time (headers within `RUNBRIDGE_HEADERS_TIMEOUT_SECONDS`, the whole request within `RUNBRIDGE_REQUEST_TIMEOUT_SECONDS`)',
  },
  invalid_cursor: {
    status: 400,
    where: ['http'],
    meaning: 'a bad `Last-Event-ID`/`after` (on the list: a run that is unknown or was forgotten)',
  },
  unknown_format: { status: 400, where: ['http'], meaning: 'an unknown `format`' },
  webhooks_not_configured: {
    status: 400,
    where: ['http'],
    meaning: 'a `webhook` on a server without `RUNBRIDGE_WEBHOOK_SECRET`',
  },
  webhook_refused: {
    status: 400,
    where: ['http'],
    meaning:
      'a `webhook` target that resolves to a loopback, private or reserved address not in `RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS` ([webhooks](webhooks.md#which-targets-may-be-called))',
  },
  webhook_unresolved: { status: 400, where: ['http'], meaning: 'a `webhook` host that does not resolve' },
  unknown_model: {
    status: 400,
    where: ['http'],
    meaning:
      'an unknown or unconfigured provider, or a model name without its provider (the message says which to write or set)',
  },
  invalid_task: {
    status: 400,
    where: ['http', 'run'],
    meaning:
      'a split or index the environment does not have, or a `task.spec` that does not fit its task schema (each field named); in a run, the ORS server refused the task',
  },
  batch_too_large: {
    status: 400,
    where: ['http'],
    meaning:
      "a rollout batch's tasks × samples pass the most runs the queue holds of one key (`RUNBRIDGE_MAX_QUEUED_RUNS`, `RUNBRIDGE_MAX_QUEUED_PER_KEY`), judged before its task selection is expanded: it could never be queued whole",
  },
  unauthorized: {
    status: 401,
    where: ['http'],
    meaning:
      'missing or wrong bearer key; a stream token that is malformed, expired or for another run; on `GET /metrics`, anything but `RUNBRIDGE_METRICS_TOKEN` (an API key too)',
  },
  host_not_allowed: {
    status: 403,
    where: ['http'],
    meaning: 'without API keys: a `Host` that is not a loopback name (DNS rebinding)',
  },
  not_found: { status: 404, where: ['http'], meaning: 'no such route' },
  run_not_found: {
    status: 404,
    where: ['http'],
    meaning: "no such run: it never existed, was forgotten, or is another key's",
  },
  rollout_not_found: {
    status: 404,
    where: ['http'],
    meaning: "no such rollout batch: it never existed, was forgotten, or is another key's",
  },
  unknown_env: {
    status: 404,
    where: ['http', 'run'],
    meaning: 'no such environment on the ORS server',
  },
  approval_not_found: {
    status: 404,
    where: ['http'],
    meaning: 'a decision for an approval the run never asked for',
  },
  idempotency_conflict: { status: 409, where: ['http'], meaning: 'a reused `Idempotency-Key` with another body' },
  run_active: { status: 409, where: ['http'], meaning: 'deleting a run that is queued or running' },
  rollout_active: {
    status: 409,
    where: ['http'],
    meaning: 'deleting a rollout batch that has not ended (cancel it first)',
  },
  approval_resolved: {
    status: 409,
    where: ['http'],
    meaning: "a decision after the first one (or the timeout, or the run's end)",
  },
  run_ended: { status: 409, where: ['http'], meaning: 'a decision or message for a run that has ended' },
  run_not_started: { status: 409, where: ['http'], meaning: 'a message for a run still queued' },
  cancelled: {
    status: 409,
    where: ['http', 'run'],
    meaning:
      "the run was cancelled: `POST /v1/chat/completions` without `stream` answers it (`details.reason`); a cancelled run's snapshot and rollout record carry it as `error.code`",
  },
  too_many_messages: {
    status: 429,
    where: ['http'],
    meaning: "16 messages already wait for the run's next turn",
  },
  queue_full: {
    status: 429,
    where: ['http'],
    meaning:
      'the queue is full, or its requests hold `RUNBRIDGE_MAX_QUEUED_BYTES` (`Retry-After` estimates when a slot frees)',
  },
  key_queue_full: {
    status: 429,
    where: ['http'],
    meaning: 'this key holds its share of the queue (`RUNBRIDGE_MAX_QUEUED_PER_KEY`)',
  },
  key_store_full: {
    status: 429,
    where: ['http'],
    meaning:
      "this key's runs and batch records hold its share of the stored bytes (`RUNBRIDGE_MAX_STORED_BYTES_PER_KEY`) and none of its own finished runs is left to forget; as a rollout batch's `error`, its next record did not fit even once the key's own ended batches were forgotten, and the batch was stopped",
  },
  store_full: {
    status: 429,
    where: ['http'],
    meaning:
      "stored runs and batch records hold `RUNBRIDGE_MAX_STORED_BYTES` and no finished run is left to forget; as a rollout batch's `error`, its next record did not fit even once the key's own ended batches were forgotten, and the batch was stopped",
  },
  too_many_streams: {
    status: 429,
    where: ['http'],
    meaning: 'as many event streams are open as the server holds, in all or for this key (`Retry-After: 5`)',
  },
  ors_unavailable: {
    status: 502,
    where: ['http', 'run'],
    meaning: 'the ORS server could not be reached (after retries), or did not answer in time',
  },
  ors_server_error: {
    status: 502,
    where: ['http', 'run'],
    meaning: 'the ORS server reported a failure of its own, such as a setup that failed; its message is quoted',
  },
  ors_bad_response: {
    status: 502,
    where: ['http', 'run'],
    meaning: 'the ORS server answered something that is not ORS',
  },
  ors_response_too_large: {
    status: 502,
    where: ['http', 'run'],
    meaning:
      'an answer of the ORS server passed `RUNBRIDGE_ORS_MAX_ANSWER_BYTES`; the bridge stopped reading it and did not retry',
  },
  ors_request_rejected: {
    status: 502,
    where: ['http', 'run'],
    meaning: 'the ORS server refused a request with a 4xx the bridge has no other code for',
  },
  decision_unconfirmed: {
    status: 503,
    where: ['http'],
    meaning: `the decision was sent, but the run did not confirm it within ${CONFIRM_WAIT_SECONDS} s`,
  },
  draining: { status: 503, where: ['http'], meaning: 'the server is shutting down' },
  not_ready: {
    status: 503,
    where: ['http'],
    meaning:
      '`GET /ready`: the store or the ORS server does not answer yet, or the server is shutting down (`details` says which)',
  },
  store_unavailable: {
    status: 503,
    where: ['http'],
    meaning:
      'the shared store (Redis) cannot be reached, or refuses writes (out of memory, read-only; the message quotes it); ' +
      'streams it fed end, so their clients resume once it is back',
  },
  internal_error: {
    status: 500,
    where: ['http', 'run'],
    meaning: 'a bug; the details go to the server log only',
  },
  model_auth: {
    status: 502,
    where: ['run'],
    meaning: 'the model provider refused the credentials (401/403)',
  },
  model_unavailable: {
    status: 502,
    where: ['run'],
    meaning:
      "the model provider is busy or down (408, 409, 429, 5xx, no connection) after its SDK's own retries — the bridge never stacks a second retry layer on top",
  },
  model_bad_request: {
    status: 502,
    where: ['run'],
    meaning:
      'the model provider rejected the request (any other 4xx), or `sampling.extra_body` sets a key the bridge sets itself',
  },
  model_stream_interrupted: {
    status: 502,
    where: ['run'],
    meaning: "the model's stream broke off before the turn was complete",
  },
  model_output_too_large: {
    status: 502,
    where: ['run'],
    meaning:
      'one model turn streamed more text, reasoning, tool arguments and token data than `RUNBRIDGE_MAX_TURN_OUTPUT_CHARS`; the bridge stopped reading it',
  },
  model_error: {
    status: 502,
    where: ['run'],
    meaning:
      'anything else the model provider reports; or it sent an event past `RUNBRIDGE_MODEL_MAX_EVENT_BYTES` or an answer past `RUNBRIDGE_MODEL_MAX_ANSWER_BYTES`, and the bridge stopped reading it',
  },
  model_context_exceeded: {
    status: 502,
    where: ['run'],
    meaning:
      "the next turn's prompt would not fit the model's context (`max_model_len` of the `vllm` provider's server); the episode ends there, its turns so far recorded, with the stop reason `context_exceeded` in its rollout record",
  },
  ors_session_lost: {
    status: 502,
    where: ['run'],
    meaning: "the ORS server no longer has the episode's session (it expired or was deleted)",
  },
  ors_session_closed: {
    status: 502,
    where: ['run'],
    meaning: 'a request on an ORS session that was already closed',
  },
  ors_call_interrupted: {
    status: 502,
    where: ['run'],
    meaning:
      'a tool call broke off before the ORS server named its task; it is not re-sent, since the tool may have run',
  },
  ors_result_lost: {
    status: 502,
    where: ['run'],
    meaning: "after a reconnect, the ORS server no longer knows the tool call's task",
  },
  event_log_full: {
    status: 500,
    where: ['run'],
    meaning: 'the run produced more than `RUNBRIDGE_MAX_EVENTS_PER_RUN` events',
  },
  instance_lost: {
    status: 500,
    where: ['run'],
    meaning:
      'the instance executing the run died or lost Redis for longer than `RUNBRIDGE_LEASE_SECONDS`, so another instance ended the run; ' +
      'or the instance holding it no longer executed it, so its own sweep did. ' +
      'A rollout pair that ends so is played again once, and recorded as failed after a second such loss',
  },
  run_too_large: {
    status: 500,
    where: ['run'],
    meaning: 'the run would hold more than `RUNBRIDGE_MAX_RUN_BYTES` of requests, events and details',
  },
  store_lost: {
    status: 500,
    where: ['run'],
    meaning:
      "no longer sent (earlier versions did): the store lost the run's record (Redis restarted without its data) and the " +
      'instance executing the run ended it; that instance now writes the run back and goes on',
  },
  rollout_timeout: {
    status: 409,
    where: ['run'],
    meaning: 'a rollout episode passed its `--timeout-seconds` and was cancelled (rollout records only)',
  },
  rollout_settings_mismatch: {
    status: 400,
    where: ['cli'],
    meaning: '`--out` holds rollouts made with other episode settings',
  },
  rollout_locked: {
    status: 409,
    where: ['cli'],
    meaning: 'another live batch is writing `--out` (its `<out>.lock` holds its pid)',
  },
  rollout_worker_failed: {
    status: 500,
    where: ['cli'],
    meaning:
      'a worker thread of `--workers` could not set itself up (its model or ORS client), or built another model than the batch',
  },
  rollout_worker_exited: {
    status: 500,
    where: ['run'],
    meaning:
      'the worker thread playing the episode died (`--workers`); the episode is played again once under `--retries`, and written as failed after a second such loss',
  },
  rollout_file_invalid: {
    status: 422,
    where: ['cli'],
    meaning: 'a line of a rollout file, other than a cut-off last one, is not a rollout record of this version',
  },
  export_no_input: { status: 400, where: ['cli'], meaning: '`rollout export` was given no rollout file' },
  export_input_repeated: { status: 400, where: ['cli'], meaning: 'an export input is given twice' },
  export_input_missing: { status: 404, where: ['cli'], meaning: 'an export input does not exist' },
  export_input_directory: { status: 400, where: ['cli'], meaning: 'an export input is a directory' },
  export_input_unreadable: { status: 422, where: ['cli'], meaning: 'an export input cannot be read' },
  export_inputs_incompatible: {
    status: 422,
    where: ['cli'],
    meaning:
      'the export inputs overlap, or mix models, sampling settings or reward reductions where the format needs one',
  },
  export_output_is_input: { status: 400, where: ['cli'], meaning: "the export's `--out` is one of its inputs" },
  export_output_not_directory: {
    status: 400,
    where: ['cli'],
    meaning: 'the `--out` of a `verifiers` export is a file',
  },
  export_output_is_directory: {
    status: 400,
    where: ['cli'],
    meaning: 'the `--out` of a one-file export is a directory',
  },
  export_output_unwritable: { status: 500, where: ['cli'], meaning: "the export's `--out` cannot be written" },
} as const satisfies Record<string, ErrorCodeEntry>;

/** A runbridge error code: a key of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes, in the table's order. */
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The schema of a code, as the OpenAPI document's `ErrorBody` lists them. */
export const ErrorCodeSchema = z.enum(ERROR_CODE_NAMES);

/** The status the table gives `code`. */
type ErrorCodeStatus<Code extends ErrorCode> = (typeof ERROR_CODES)[Code]['status'];

/** The codes whose status is one of `Status`: what an error class named for a status may carry. */
export type ErrorCodeOfStatus<Status extends number> = {
  [Code in ErrorCode]: ErrorCodeStatus<Code> extends Status ? Code : never;
}[ErrorCode];

/** The codes that show `where`, in the table's order. */
export function errorCodesWhere(where: ErrorCodeWhere): ErrorCode[] {
  return ERROR_CODE_NAMES.filter((code) => (ERROR_CODES[code].where as readonly ErrorCodeWhere[]).includes(where));
}

/** True when `value` is one of the table's codes. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
