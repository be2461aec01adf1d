import { define } from './define-script.js';

/**
 * The Lua script of the A2A store (`RedisA2aStore`), with the runs' prelude (see `redis-scripts.ts`):
 * a task's push configs are a hash by id beside a list of the ids in the order they were first stored.
 */

/**
 * Stores push config `id` of task `taskId` (its JSON `record`), in place of one of the same id; refuses
 * a new one (returns 0) when the task holds `max` already. Both keys expire `ttlMs` later.
 */
const PUT_PUSH_CONFIG = define(
  ['taskId', 'id', 'record', 'max', 'ttlMs'],
  `
local configs = K.a2aPush(A.taskId)
local order = K.a2aPushOrder(A.taskId)
if redis.call('HEXISTS', configs, A.id) == 0 then
  if redis.call('HLEN', configs) >= num(A.max) then return 0 end
  redis.call('RPUSH', order, A.id)
end
redis.call('HSET', configs, A.id, A.record)
redis.call('PEXPIRE', configs, A.ttlMs)
redis.call('PEXPIRE', order, A.ttlMs)
return 1
`,
);

/** The A2A store's scripts, by the command name each is defined under. */
export const A2A_SCRIPTS = { rbPutPushConfig: PUT_PUSH_CONFIG } as const;
