import { define } from './define-script.js';

/**
 * The Lua scripts of the rollout batches (`RedisRolloutStore`), with the runs' prelude (`K`, `A`, `num`,
 * see `redis-scripts.ts`). Settling a pair is one script, so of every instance that settles the same
 * attempt of the same pair, one appends its record (or moves it to its next attempt) and the others
 * find it done: each pair is recorded once, whoever ends its run.
 */

/** Helpers of the rollout scripts: ending and forgetting a batch. */
const ROLLOUT_HELPERS = `
-- Ends batch id at now: out of the open set, into the ended one, its keys expiring after expireMs.
local function end_batch(id, now, expireMs)
  local batch = K.rollout(id)
  redis.call('HSET', batch, 'finished_at', now)
  redis.call('SREM', K.rolloutsOpen, id)
  redis.call('ZADD', K.rolloutsEnded, now, id)
  for _, key in ipairs({ batch, K.rolloutPairs(id), K.rolloutRecords(id), K.rolloutOutcomes(id) }) do
    redis.call('PEXPIRE', key, expireMs)
  end
  local idem = redis.call('HGET', batch, 'idem')
  if idem and idem ~= '' then redis.call('PEXPIRE', idem, expireMs) end
end
-- Forgets batch id: its keys, its place in the indexes, its idempotency key while that names it, its bytes.
local function forget_batch(id)
  local batch = K.rollout(id)
  local owner = redis.call('HGET', batch, 'owner')
  local idem = redis.call('HGET', batch, 'idem')
  if owner then
    redis.call('ZREM', K.ownerRollouts(owner), id)
    local bytes = num(redis.call('HGET', batch, 'bytes'))
    if bytes > 0 then
      redis.call('DECRBY', K.storedBytes, bytes)
      add(K.ownerBytes, owner, -bytes)
    end
  end
  if idem and idem ~= '' then
    local value = redis.call('GET', idem)
    if value and string.match(value, ':(.*)$') == id then redis.call('DEL', idem) end
  end
  redis.call('SREM', K.rolloutsOpen, id)
  redis.call('ZREM', K.rolloutsEnded, id)
  redis.call('DEL', batch, K.rolloutPairs(id), K.rolloutRecords(id), K.rolloutOutcomes(id))
end
-- Forgets owner's own ended batches but keep, oldest first, until bytes more fit in its share and the
-- total; returns the budget still full ('key_store_full', 'store_full'), or nil.
local function make_room(owner, bytes, keep)
  local function full()
    if num(redis.call('HGET', K.ownerBytes, owner)) + bytes > num(A.maxStoredBytesPerKey) then return 'key_store_full' end
    if num(redis.call('GET', K.storedBytes)) + bytes > num(A.maxStoredBytes) then return 'store_full' end
    return nil
  end
  if not full() then return nil end
  for _, other in ipairs(redis.call('ZRANGE', K.ownerRollouts(owner), 0, -1)) do
    local ended = redis.call('HGET', K.rollout(other), 'finished_at')
    if other ~= keep and ended and ended ~= '' then
      forget_batch(other)
      if not full() then return nil end
    end
  end
  return full()
end
-- Counts bytes more held by batch id of owner.
local function count_bytes(id, owner, bytes)
  redis.call('INCRBY', K.storedBytes, bytes)
  redis.call('HINCRBY', K.ownerBytes, owner, bytes)
  redis.call('HINCRBY', K.rollout(id), 'bytes', bytes)
end
`;

/**
 * Stores batch `id` whose pair n is first played by the run named n-th in the list after the arguments,
 * binding idempotency key `idemKey` (or '') to it, its record counted in the stored bytes. Returns
 * `{created}`, `{existing, id}` (the key names a batch that still exists, made with the same body hash),
 * `{conflict}` (with another) or `{full, budget}` (its record does not fit, as `SETTLE` judges a record).
 */
const CREATE = define(
  ['id', 'owner', 'record', 'total', 'createdAt', 'idemKey', 'idemHash', 'maxStoredBytes', 'maxStoredBytesPerKey'],
  `${ROLLOUT_HELPERS}
if A.idemKey ~= '' then
  local value = redis.call('GET', A.idemKey)
  if value then
    local hash, existing = string.match(value, '^(%x+):(.*)$')
    if existing and redis.call('EXISTS', K.rollout(existing)) == 1 then
      if hash == A.idemHash then return { 'existing', existing } end
      return { 'conflict' }
    end
  end
end
local bytes = string.len(A.record)
local budget = make_room(A.owner, bytes, A.id)
if budget then return { 'full', budget } end
if A.idemKey ~= '' then redis.call('SET', A.idemKey, A.idemHash .. ':' .. A.id) end
redis.call('HSET', K.rollout(A.id), 'owner', A.owner, 'record', A.record, 'total', A.total, 'recorded', 0,
  'cancelled_at', '', 'finished_at', '', 'idem', A.idemKey)
count_bytes(A.id, A.owner, bytes)
local slots = K.rolloutPairs(A.id)
for i = REST, #ARGV do redis.call('HSET', slots, i - REST, ARGV[i] .. ':1:open') end
redis.call('ZADD', K.ownerRollouts(A.owner), A.createdAt, A.id)
redis.call('SADD', K.rolloutsOpen, A.id)
return { 'created' }
`,
  true,
);

/**
 * Settles attempt `attempt` of pair `pair` of batch `id`, played by run `run` (see
 * `RolloutBatchStore.settle`): `kind` `record` appends `record` and `outcome`, counted in the runs'
 * stored bytes (`K.storedBytes`, the owner's in `K.ownerBytes`) — making room from the owner's own
 * ended batches, oldest first, or stopping the batch when none is left — `retry` makes run `next` the
 * pair's next attempt, `replace` makes it play the same attempt. Returns `recorded`, `retry`,
 * `cancelled`, `refused` or `stale`.
 */
const SETTLE = define(
  [
    'id',
    'pair',
    'run',
    'attempt',
    'kind',
    'record',
    'outcome',
    'next',
    'now',
    'expireMs',
    'maxStoredBytes',
    'maxStoredBytesPerKey',
  ],
  `${ROLLOUT_HELPERS}
local batch = K.rollout(A.id)
if redis.call('EXISTS', batch) == 0 then return 'stale' end
local slots = K.rolloutPairs(A.id)
if redis.call('HGET', slots, A.pair) ~= A.run .. ':' .. A.attempt .. ':open' then return 'stale' end
if redis.call('HGET', batch, 'cancelled_at') ~= '' then
  redis.call('HSET', slots, A.pair, A.run .. ':' .. A.attempt .. ':done')
  return 'cancelled'
end
if A.kind == 'retry' then
  redis.call('HSET', slots, A.pair, A.next .. ':' .. (num(A.attempt) + 1) .. ':open')
  return 'retry'
end
if A.kind == 'replace' then
  redis.call('HSET', slots, A.pair, A.next .. ':' .. A.attempt .. ':open')
  return 'retry'
end
redis.call('HSET', slots, A.pair, A.run .. ':' .. A.attempt .. ':done')
local owner = redis.call('HGET', batch, 'owner')
local bytes = string.len(A.record) + string.len(A.outcome)
local budget = make_room(owner, bytes, A.id)
if budget then
  redis.call('HSET', batch, 'cancelled_at', A.now, 'stopped', budget)
  end_batch(A.id, A.now, A.expireMs)
  return 'refused'
end
count_bytes(A.id, owner, bytes)
redis.call('RPUSH', K.rolloutRecords(A.id), A.record)
redis.call('RPUSH', K.rolloutOutcomes(A.id), A.outcome)
local recorded = redis.call('HINCRBY', batch, 'recorded', 1)
if recorded >= num(redis.call('HGET', batch, 'total')) then end_batch(A.id, A.now, A.expireMs) end
return 'recorded'
`,
);

/** Cancels batch `id` at `now`, unless it ended before (or is gone). */
const CANCEL = define(
  ['id', 'now', 'expireMs'],
  `${ROLLOUT_HELPERS}
local batch = K.rollout(A.id)
if redis.call('EXISTS', batch) == 0 or redis.call('HGET', batch, 'finished_at') ~= '' then return 0 end
redis.call('HSET', batch, 'cancelled_at', A.now)
end_batch(A.id, A.now, A.expireMs)
return 1
`,
);

/** Forgets batch `id`. */
const FORGET = define(
  ['id'],
  `${ROLLOUT_HELPERS}
forget_batch(A.id)
return 1
`,
);

/** Forgets the batches that ended at or before `endedBy`, at most `most`; returns how many. */
const SWEEP = define(
  ['endedBy', 'most'],
  `${ROLLOUT_HELPERS}
local ids = redis.call('ZRANGEBYSCORE', K.rolloutsEnded, '-inf', A.endedBy, 'LIMIT', 0, num(A.most))
for _, id in ipairs(ids) do forget_batch(id) end
return #ids
`,
);

/** The scripts of the rollout batches, by the command name each is defined under. */
export const ROLLOUT_SCRIPTS = {
  rbRolloutCreate: CREATE,
  rbRolloutSettle: SETTLE,
  rbRolloutCancel: CANCEL,
  rbRolloutForget: FORGET,
  rbRolloutSweep: SWEEP,
} as const;
