import { describe, expect, it } from 'vitest';
import { A2aError } from '../../src/a2a/a2a-error.js';
import { type A2aMethodTable, resolveMethod, type V03MethodTable } from '../../src/a2a/a2a-methods.js';

/**
 * The method tables and their dispatcher (src/a2a/a2a-methods.ts): the hook push notifications plug
 * into. A method is written once under its v1.0 name; a v0.3 name stands for it with translations.
 */

const echo: A2aMethodTable[string] = async (call) => ({ result: call.params });
const methods: A2aMethodTable = { GetTask: echo };
const v03: V03MethodTable = {
  'tasks/get': {
    v1: 'GetTask',
    params: (params) => ({ ...params, translated: true }),
    result: (result) => ({ kind: 'task', result }),
  },
};

function codeOf(run: () => unknown): number | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof A2aError ? error.rpcCode : undefined;
  }
  return undefined;
}

describe('the A2A method tables', () => {
  it('finds a v1.0 method by its name, and a v0.3 one by its own, with its translations', async () => {
    const v1 = resolveMethod('1.0', 'GetTask', { id: 't' }, methods, v03);
    expect(v1.params).toEqual({ id: 't' });
    const old = resolveMethod('0.3', 'tasks/get', { id: 't' }, methods, v03);
    expect(old.method).toBe(echo);
    expect(old.params).toEqual({ id: 't', translated: true });
    expect(old.result('r')).toEqual({ kind: 'task', result: 'r' });
  });

  it('does not mix the versions’ names, and answers an unknown method -32601', () => {
    expect(codeOf(() => resolveMethod('0.3', 'GetTask', {}, methods, v03))).toBe(-32601);
    expect(codeOf(() => resolveMethod('1.0', 'tasks/get', {}, methods, v03))).toBe(-32601);
    expect(codeOf(() => resolveMethod('1.0', 'toString', {}, methods, v03))).toBe(-32601);
    expect(codeOf(() => resolveMethod('0.3', 'constructor', {}, methods, v03))).toBe(-32601);
  });

  it('answers the push config methods -32003 until a module adds them to both tables', () => {
    expect(codeOf(() => resolveMethod('1.0', 'CreateTaskPushNotificationConfig', {}, methods, v03))).toBe(-32003);
    expect(codeOf(() => resolveMethod('0.3', 'tasks/pushNotificationConfig/set', {}, methods, v03))).toBe(-32003);
    const withPush = { ...methods, CreateTaskPushNotificationConfig: echo };
    const v03WithPush = { ...v03, 'tasks/pushNotificationConfig/set': { v1: 'CreateTaskPushNotificationConfig' } };
    expect(resolveMethod('1.0', 'CreateTaskPushNotificationConfig', {}, withPush, v03WithPush).method).toBe(echo);
    expect(resolveMethod('0.3', 'tasks/pushNotificationConfig/set', {}, withPush, v03WithPush).method).toBe(echo);
  });
});
