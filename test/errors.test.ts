import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  BadRequestError,
  CapacityError,
  ConflictError,
  DrainingError,
  ModelError,
  NotFoundError,
  OrsError,
  RunbridgeError,
  UnauthorizedError,
} from '../src/errors.js';
import type { ErrorCode } from '../src/protocol/error-codes.js';

describe('RunbridgeError and its subclasses', () => {
  it('answer with the status the error table gives their code', () => {
    expect(new BadRequestError('Bad.')).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(new BadRequestError('Not JSON.', { code: 'unsupported_media_type' }).status).toBe(415);
    expect(new UnauthorizedError()).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(new NotFoundError('No run.', 'run_not_found').status).toBe(404);
    expect(new ConflictError('Ended.', 'run_ended').status).toBe(409);
    expect(new CapacityError('Busy.', 5, 'too_many_streams')).toMatchObject({ status: 429, retryAfterSeconds: 5 });
    expect(new DrainingError()).toMatchObject({ code: 'draining', status: 503 });
    expect(new OrsError('No such env.', { code: 'unknown_env' }).status).toBe(404);
    expect(new OrsError('Down.', { code: 'ors_unavailable' }).status).toBe(502);
    expect(new ModelError('Refused.', { code: 'model_auth' }).status).toBe(502);
    expect(new RunbridgeError('Lost.', { code: 'instance_lost' })).toMatchObject({
      status: 500,
      name: 'RunbridgeError',
    });
  });

  it('keep a status given for a code that answers with another one here', () => {
    expect(new RunbridgeError('The run failed.', { code: 'invalid_task', status: 502 }).status).toBe(502);
  });

  it('take only codes of the table, and each class only the codes of its status', () => {
    expectTypeOf<RunbridgeError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<'no_such_code'>().not.toExtend<ErrorCode>();
    expectTypeOf<'run_ended'>().toExtend<ConstructorParameters<typeof ConflictError>[1]>();
    expectTypeOf<'run_not_found'>().not.toExtend<ConstructorParameters<typeof ConflictError>[1]>();
    expectTypeOf<'too_many_streams'>().toExtend<ConstructorParameters<typeof CapacityError>[2]>();
    expectTypeOf<'draining'>().not.toExtend<ConstructorParameters<typeof CapacityError>[2]>();
    expectTypeOf<'model_auth'>().toExtend<ConstructorParameters<typeof ModelError>[1]['code']>();
    expectTypeOf<'ors_unavailable'>().not.toExtend<ConstructorParameters<typeof ModelError>[1]['code']>();
  });
});
