import { RunbridgeError } from '../../errors.js';

/**
 * Rollout files that exist but cannot be exported as asked: a damaged line, a file that is not a
 * rollout file, or inputs that do not belong in one export (the same episode twice, mixed models
 * where token data and advantages need one policy). `docs/trajectory.md` lists the codes.
 * The command reports it and exits 3; the caller's own mistakes (a missing file, an unknown format)
 * are `BadRequestError`s / `NotFoundError`s instead, exit 2.
 */
export class ExportInputError extends RunbridgeError {
  constructor(
    message: string,
    code: 'rollout_file_invalid' | 'export_inputs_incompatible' | 'export_input_unreadable',
  ) {
    super(message, { code, status: 422 });
  }
}
