import { define } from './define-script.js';

/**
 * Writes run `id` back, running on `instance` with an empty log, when Redis no longer holds it (it restarted
 * without its data) though that instance still executes it: its record, its place in the indexes, the
 * bytes and slot it counts. The instance then appends the whole log again. Returns 1, or 0 when the run
 * is there.
 */
const RESTORE = define(
  ['id', 'owner', 'record', 'snapshot', 'createdAt', 'storedBytes', 'instance', 'touchedAt', 'listed'],
  `
local id, owner, stored = A.id, A.owner, num(A.storedBytes)
local run = K.run(id)
if redis.call('HGET', run, 'holder') then return 0 end
redis.call('DEL', run, K.log(id), K.secrets(id))
redis.call('HSET', run, 'owner', owner, 'record', A.record, 'snapshot', A.snapshot, 'last_seq', -1,
  'touched_at', A.touchedAt, 'idem', '', 'bytes', stored, 'listed', A.listed, 'state', 'running', 'holder', A.instance)
if A.listed == '1' then redis.call('ZADD', K.owner(owner), A.createdAt, id) end
redis.call('HSET', K.running, id, A.instance)
redis.call('HINCRBY', K.runningByOwner, owner, 1)
redis.call('INCRBY', K.storedBytes, stored)
redis.call('HINCRBY', K.ownerBytes, owner, stored)
redis.call('HSET', K.runBytes, id, stored)
return 1
`,
);

/**
 * The script that writes back a run Redis lost while an instance executes it (`RunLogWriter`), with the
 * runs' prelude (`K`, `A`, `num`, see `redis-scripts.ts`).
 */
export const WRITE_BACK_SCRIPTS = { rbRestore: RESTORE } as const;
