import { OrsError } from '../../errors.js';
import { cutMessage } from '../../protocol/cut-message.js';
import { OrsErrorBodySchema } from '../ors-schemas.js';
import { type AnswerBody, readAnswerText } from './read-answer.js';
import type { Redactor } from './redactor.js';

/**
 * What a 4xx from an endpoint means: `env` (an environment lookup: 404 is an unknown environment),
 * `task` (a task lookup or `/create` by split and index: also 400 is a bad split or index), `spec`
 * (`/create` with a task spec: 400 is a spec the environment refuses), `session` (an endpoint of
 * an open session: 404 and 410 mean the session is gone), `server` (no special meaning).
 */
export type EndpointKind = 'env' | 'task' | 'spec' | 'session' | 'server';

const DETAIL_LIMIT = 500;

/**
 * Reads an error response's `{"detail"}` (FastAPI's shape) or, failing that, its raw text, as one
 * line of at most 500 characters with the episode's secrets removed by `redactor` — before the line is
 * folded and cut, so no secret survives in part. Never throws for a malformed body; a failed read
 * surfaces as the read's error, a body over `limit` bytes as `ors_response_too_large` (read-answer.ts).
 */
export async function readErrorDetail(
  response: AnswerBody,
  answer: { endpoint: string; limit: number },
  redactor: Redactor | undefined,
): Promise<string> {
  const text = await readAnswerText(response, answer.endpoint, answer.limit);
  let detail = text.trim();
  try {
    const body = OrsErrorBodySchema.safeParse(JSON.parse(text));
    if (body.success) {
      detail = typeof body.data.detail === 'string' ? body.data.detail : JSON.stringify(body.data.detail);
    }
  } catch {
    // Not JSON: the raw text is the best description there is.
  }
  if (redactor) detail = redactor.text(detail);
  // Cut between words: a secret of the bridge's own, which only the run redacts, is never cut in two.
  return cutMessage(detail.replace(/\s+/g, ' '), DETAIL_LIMIT);
}

/**
 * The `OrsError` for a non-retryable HTTP status of `endpoint`: `unknown_env` (404 on `env`/`task`),
 * `invalid_task` (400 on `task` or `spec`), `ors_session_lost` (404/410 on `session`), and
 * `ors_request_rejected` for anything else, with `details` `{endpoint, status, detail}`.
 */
export function statusError(
  kind: EndpointKind,
  endpoint: string,
  status: number,
  detail: string,
  sid?: string,
): OrsError {
  const answered = `${status}${detail ? `: ${detail}` : ''}`;
  const details = { endpoint, status, detail };
  if (status === 404 && (kind === 'env' || kind === 'task' || kind === 'spec')) {
    return new OrsError(
      `${endpoint}: the ORS server does not know this environment (${answered}). ` +
        'GET /list_environments lists the ones it serves.',
      { code: 'unknown_env', details },
    );
  }
  if (status === 400 && kind === 'task') {
    return new OrsError(
      `${endpoint}: the ORS server rejected the task (${answered}). ` +
        "Check the split name and that the index is below the split's task count.",
      { code: 'invalid_task', details },
    );
  }
  if (status === 400 && kind === 'spec') {
    return new OrsError(
      `${endpoint}: the ORS server rejected the task spec (${answered}). ` +
        'Check task.spec against what the environment expects (docs/ors.md lists it for the built-in ones).',
      { code: 'invalid_task', details },
    );
  }
  if ((status === 404 || status === 410) && kind === 'session') {
    return new OrsError(
      `${endpoint}: the ORS server no longer has session ${sid ?? '(none)'} (${answered}); ` +
        'it expired or was deleted. Start a new episode.',
      { code: 'ors_session_lost', details: { ...details, sid } },
    );
  }
  return new OrsError(`${endpoint}: the ORS server rejected the request (${answered}).`, {
    code: 'ors_request_rejected',
    details,
  });
}
