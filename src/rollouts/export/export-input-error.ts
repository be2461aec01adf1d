import { RunbridgeError } from '../../errors.js';
import type { ErrorCodeOfStatus } from '../../protocol/error-codes.js';

/**
 * Rollout files that exist but cannot be exported as asked: a damaged line, a file that is not a
 * rollout file, or inputs that do not belong in one export (the same episode twice, mixed models
 * where token data and advantages need one policy): the 422 codes of src/protocol/error-codes.ts.
 * The command reports it and exits 3; the caller's own mistakes (a missing file, an unknown format)
 * are `BadRequestError`s / `NotFoundError`s instead, exit 2.
 */
export class ExportInputError extends RunbridgeError {
  constructor(message: string, code: ErrorCodeOfStatus<422>) {
    super(message, { code });
  }
}
