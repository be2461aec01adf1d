import { BadRequestError } from '../errors.js';

/**
 * The resume cursor of an events request: `Last-Event-ID` (what a reconnecting EventSource sends)
 * wins over `?after=`; none means "from the start" (-1). Anything but a whole number ≥ -1 is a 400 —
 * the value is never echoed into a header, so an injected CR/LF goes nowhere.
 */
export function parseCursor(lastEventId: string | undefined, after: string | undefined): number {
  const raw = lastEventId ?? after;
  if (raw === undefined || raw === '') return -1;
  if (!/^-?\d{1,15}$/.test(raw.trim())) {
    throw new BadRequestError(
      'The cursor (Last-Event-ID or ?after=) must be a whole number: the seq of the last event you have.',
      {
        code: 'invalid_cursor',
      },
    );
  }
  const cursor = Number(raw.trim());
  if (cursor < -1) throw new BadRequestError('The cursor must be -1 or more.', { code: 'invalid_cursor' });
  return cursor;
}
