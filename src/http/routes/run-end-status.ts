import { ERROR_CODES, type ErrorCode } from '../../protocol/error-codes.js';

/**
 * The status of an answer that tells how a run ended (`POST /v1/chat/completions` without `stream`): the
 * request was fine and the episode failed, so a failure at the model or the ORS server is a 502 and one
 * inside the bridge (`internal_error`) a 500, whatever status the code has when it refuses a request before
 * a run starts (`invalid_task` is a 400 then); a cancelled run is `cancelled` with the table's status.
 */
export function runEndStatus(code: ErrorCode): number {
  if (code === 'cancelled') return ERROR_CODES.cancelled.status;
  return code === 'internal_error' ? ERROR_CODES.internal_error.status : 502;
}

/** `when` (e.g. "Not streaming"), then how a route that answers a run's end answers it, with {@link runEndStatus}'s statuses. */
export function runEndAnswerText(when: string): string {
  return `${when}: a run that failed answers its code with ${runEndStatus('model_error')} (${runEndStatus('internal_error')} for \`internal_error\`), a cancelled one ${runEndStatus('cancelled')} \`cancelled\` (\`details.reason\` says why).`;
}
