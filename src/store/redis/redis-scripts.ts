/**
 * The Lua scripts of the Redis store. Each runs atomically in Redis, which is what makes the queue,
 * the quotas, the byte budgets and the fencing of appends hold with any number of instances. Every
 * script takes the key prefix as its first argument; the keys it builds from it are listed in
 * `docs/deployment.md`. Numbers travel as strings and come back as integers.
 */

/** Helpers shared by the scripts (prepended to each). */
const HELPERS = `
local p = ARGV[1]
local function num(value) return tonumber(value or '0') or 0 end
local function add(hash, field, delta)
  local value = redis.call('HINCRBY', hash, field, delta)
  if value <= 0 then redis.call('HDEL', hash, field) end
end
-- Forgets run id: its keys, its place in the indexes, its bytes.
local function forget(id)
  local run = p .. 'run:' .. id
  local owner = redis.call('HGET', run, 'owner')
  local idem = redis.call('HGET', run, 'idem')
  redis.call('DECRBY', p .. 'bytes', num(redis.call('HGET', p .. 'sizes', id)))
  redis.call('HDEL', p .. 'sizes', id)
  redis.call('ZREM', p .. 'finished', id)
  if owner then redis.call('ZREM', p .. 'owner:' .. owner, id) end
  if idem and idem ~= '' then redis.call('DEL', idem) end
  redis.call('DEL', run, run .. ':log', run .. ':secrets')
end
-- Takes queued run id out of the queue for instance: it now runs there. Returns record and secrets.
local function take(id, owner, instance)
  local run = p .. 'run:' .. id
  redis.call('ZREM', p .. 'queue', id)
  add(p .. 'queued:keys', owner, -1)
  redis.call('DECRBY', p .. 'queued:bytes', num(redis.call('HGET', run, 'rbytes')))
  redis.call('HINCRBY', p .. 'running:keys', owner, 1)
  redis.call('HSET', p .. 'running', id, instance)
  redis.call('HSET', run, 'status', 'running', 'holder', instance)
  return { id, redis.call('HGET', run, 'record'), redis.call('GET', run .. ':secrets') or '' }
end
`;

/**
 * Admits a new run. ARGV: prefix, id, owner, record, snapshot, created at, stored bytes, request
 * bytes, idempotency key name (or ''), its value, start here (1/0), instance, max queued, max running
 * per key, max queued per key, max queued bytes, max stored bytes, sealed secrets (or ''). Forgets the
 * longest-finished runs while the byte budget lacks room. Returns `{started}`, `{queued}`, or
 * `{refused, code, held, limit}`.
 */
export const SUBMIT = `${HELPERS}
local id, owner, stored = ARGV[2], ARGV[3], num(ARGV[7])
local held = num(redis.call('GET', p .. 'bytes'))
while held + stored > num(ARGV[17]) do
  local oldest = redis.call('ZRANGE', p .. 'finished', 0, 0)
  if #oldest == 0 then break end
  forget(oldest[1])
  held = num(redis.call('GET', p .. 'bytes'))
end
if held + stored > num(ARGV[17]) then return { 'refused', 'store_full', held, num(ARGV[17]) } end
local run = p .. 'run:' .. id
local kind = 'queued'
if ARGV[11] == '1' and num(redis.call('HGET', p .. 'running:keys', owner)) < num(ARGV[14]) then
  redis.call('HINCRBY', p .. 'running:keys', owner, 1)
  redis.call('HSET', p .. 'running', id, ARGV[12])
  redis.call('HSET', run, 'status', 'running', 'holder', ARGV[12])
  kind = 'started'
else
  local queued = redis.call('ZCARD', p .. 'queue')
  if queued >= num(ARGV[13]) then return { 'refused', 'queue_full', queued, num(ARGV[13]) } end
  local mine = num(redis.call('HGET', p .. 'queued:keys', owner))
  if mine >= num(ARGV[15]) then return { 'refused', 'key_queue_full', mine, num(ARGV[15]) } end
  local bytes = num(redis.call('GET', p .. 'queued:bytes'))
  if bytes + num(ARGV[8]) > num(ARGV[16]) then return { 'refused', 'queue_bytes', bytes, num(ARGV[16]) } end
  local order = redis.call('INCR', p .. 'queue:seq')
  redis.call('ZADD', p .. 'queue', order, id)
  redis.call('HINCRBY', p .. 'queued:keys', owner, 1)
  redis.call('INCRBY', p .. 'queued:bytes', num(ARGV[8]))
  redis.call('HSET', run, 'status', 'queued', 'holder', '', 'order', order, 'rbytes', num(ARGV[8]))
end
if ARGV[18] ~= '' then redis.call('SET', run .. ':secrets', ARGV[18]) end
redis.call('HSET', run, 'owner', owner, 'record', ARGV[4], 'snapshot', ARGV[5], 'last_seq', -1,
  'touched_at', ARGV[6], 'idem', ARGV[9], 'bytes', stored)
redis.call('ZADD', p .. 'owner:' .. owner, ARGV[6], id)
redis.call('INCRBY', p .. 'bytes', stored)
redis.call('HSET', p .. 'sizes', id, stored)
if ARGV[9] ~= '' then redis.call('SET', ARGV[9], ARGV[10]) end
return { kind }
`;

/**
 * Takes up to ARGV[3] queued runs for instance ARGV[2], oldest first, skipping owners at their
 * running quota ARGV[4]. Returns `{id, record, sealed secrets or ''}` for each.
 */
export const CLAIM = `${HELPERS}
local max, quota = num(ARGV[3]), num(ARGV[4])
local taken = {}
for _, id in ipairs(redis.call('ZRANGE', p .. 'queue', 0, -1)) do
  if #taken >= max then break end
  local owner = redis.call('HGET', p .. 'run:' .. id, 'owner')
  if not owner then
    redis.call('ZREM', p .. 'queue', id)
  elseif num(redis.call('HGET', p .. 'running:keys', owner)) < quota then
    table.insert(taken, take(id, owner, ARGV[2]))
  end
end
return taken
`;

/** Takes queued run ARGV[2] for instance ARGV[3] (to cancel it); `{}` when it is not queued. */
export const UNQUEUE = `${HELPERS}
if not redis.call('ZSCORE', p .. 'queue', ARGV[2]) then return {} end
return take(ARGV[2], redis.call('HGET', p .. 'run:' .. ARGV[2], 'owner'), ARGV[3])
`;

/**
 * Appends entries to run ARGV[2]'s log, fenced: only while its holder is ARGV[3], the log ends at
 * seq ARGV[4] - 1, and (for ARGV[11] naming a lease) that lease is gone. ARGV: prefix, id, holder,
 * first seq, count, snapshot, status, added bytes, finished at (or ''), expiry ms, lease (or ''),
 * then event JSON and detail JSON (or '') per entry. A terminal batch (finished at) releases the
 * run's slot and sets the expiry of its keys. Returns `ok`, `gone`, `fenced`, `alive` or `gap`.
 */
export const APPEND = `${HELPERS}
local id, first, n = ARGV[2], num(ARGV[4]), num(ARGV[5])
local run = p .. 'run:' .. id
local holder = redis.call('HGET', run, 'holder')
if not holder then return 'gone' end
if holder ~= ARGV[3] then return 'fenced' end
if ARGV[11] ~= '' and redis.call('EXISTS', ARGV[11]) == 1 then return 'alive' end
if num(redis.call('HGET', run, 'last_seq')) ~= first - 1 then return 'gap' end
local log = run .. ':log'
for i = 0, n - 1 do
  local event, detail = ARGV[12 + 2 * i], ARGV[13 + 2 * i]
  if detail == '' then
    redis.call('XADD', log, '0-' .. (first + i + 1), 'e', event)
  else
    redis.call('XADD', log, '0-' .. (first + i + 1), 'e', event, 'd', detail)
  end
end
if first == 0 then redis.call('DEL', run .. ':secrets') end
redis.call('HSET', run, 'last_seq', first + n - 1, 'snapshot', ARGV[6], 'status', ARGV[7])
redis.call('HINCRBY', run, 'bytes', num(ARGV[8]))
redis.call('HINCRBY', p .. 'sizes', id, num(ARGV[8]))
redis.call('INCRBY', p .. 'bytes', num(ARGV[8]))
if ARGV[9] ~= '' then
  redis.call('HSET', run, 'holder', '', 'finished_at', ARGV[9])
  redis.call('HDEL', p .. 'running', id)
  add(p .. 'running:keys', redis.call('HGET', run, 'owner'), -1)
  redis.call('ZADD', p .. 'finished', ARGV[9], id)
  redis.call('PEXPIRE', run, ARGV[10])
  redis.call('PEXPIRE', log, ARGV[10])
  local idem = redis.call('HGET', run, 'idem')
  if idem and idem ~= '' then redis.call('PEXPIRE', idem, ARGV[10]) end
end
return 'ok'
`;

/**
 * Puts run ARGV[2], taken by instance ARGV[3] whose lease ARGV[4] is gone before it wrote anything,
 * back in the queue at its old place, to be started elsewhere. Returns 1 when it did.
 */
export const REQUEUE = `${HELPERS}
local id = ARGV[2]
local run = p .. 'run:' .. id
if redis.call('HGET', run, 'holder') ~= ARGV[3] or redis.call('EXISTS', ARGV[4]) == 1 then return 0 end
if num(redis.call('HGET', run, 'last_seq')) ~= -1 then return 0 end
local owner = redis.call('HGET', run, 'owner')
redis.call('HDEL', p .. 'running', id)
add(p .. 'running:keys', owner, -1)
redis.call('ZADD', p .. 'queue', num(redis.call('HGET', run, 'order')), id)
redis.call('HINCRBY', p .. 'queued:keys', owner, 1)
redis.call('INCRBY', p .. 'queued:bytes', num(redis.call('HGET', run, 'rbytes')))
redis.call('HSET', run, 'status', 'queued', 'holder', '')
return 1
`;

/** Forgets finished run ARGV[2]; returns 0 (and keeps it) while it is queued or running. */
export const FORGET = `${HELPERS}
local run = p .. 'run:' .. ARGV[2]
local status = redis.call('HGET', run, 'status')
if status == 'queued' or status == 'running' then return 0 end
forget(ARGV[2])
return 1
`;

/**
 * Forgets the runs finished before ARGV[2] (retention), then the longest-finished ones while stored
 * runs hold more than ARGV[3] bytes; at most ARGV[4] per call. Returns how many it forgot.
 */
export const SWEEP = `${HELPERS}
local forgotten = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', p .. 'finished', '-inf', '(' .. ARGV[2], 'LIMIT', 0, num(ARGV[4]))) do
  forget(id)
  forgotten = forgotten + 1
end
while forgotten < num(ARGV[4]) and num(redis.call('GET', p .. 'bytes')) > num(ARGV[3]) do
  local oldest = redis.call('ZRANGE', p .. 'finished', 0, 0)
  if #oldest == 0 then break end
  forget(oldest[1])
  forgotten = forgotten + 1
end
return forgotten
`;

/**
 * Claims idempotency key ARGV[2] for body hash ARGV[3]: `{claimed}` (now pending, for ARGV[4] ms),
 * `{run, id}`, `{conflict}` or `{pending}`. A key naming a run that is gone is claimed afresh.
 */
export const CLAIM_KEY = `${HELPERS}
local key, hash = ARGV[2], ARGV[3]
local value = redis.call('GET', key)
if value then
  local state, stored, id = string.match(value, '^(%a+):(%x+):?(.*)$')
  if stored ~= hash then return { 'conflict' } end
  if state == 'pending' then return { 'pending' } end
  if redis.call('EXISTS', p .. 'run:' .. id) == 1 then return { 'run', id } end
end
redis.call('SET', key, 'pending:' .. hash, 'PX', ARGV[4])
return { 'claimed' }
`;

/** Frees idempotency key ARGV[2] if it is still pending (its creation failed). */
export const RELEASE_KEY = `${HELPERS}
local value = redis.call('GET', ARGV[2])
if value and string.sub(value, 1, 8) == 'pending:' then redis.call('DEL', ARGV[2]) end
return 1
`;

/** Records that run ARGV[2] was touched at ARGV[3] (nothing when it is gone). */
export const TOUCH = `${HELPERS}
local run = p .. 'run:' .. ARGV[2]
if redis.call('EXISTS', run) == 1 then redis.call('HSET', run, 'touched_at', ARGV[3]) end
return 1
`;

/**
 * Claims webhook deliveries due by ARGV[2] (at most ARGV[3]) for one instance: each is due again at
 * ARGV[4] (the lease), so no other instance takes it while its attempt runs, and one whose instance
 * died is taken again after the lease. Returns the deliveries' records.
 */
export const CLAIM_WEBHOOKS = `${HELPERS}
local due = p .. 'wh:due'
local ids = redis.call('ZRANGEBYSCORE', due, '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local records = {}
for _, id in ipairs(ids) do
  local record = redis.call('GET', p .. 'wh:d:' .. id)
  if record then
    redis.call('ZADD', due, ARGV[4], id)
    table.insert(records, record)
  else
    redis.call('ZREM', due, id)
  end
end
return records
`;

/** Every script of the store, by the command name it is defined under. */
export const SCRIPTS = {
  rbSubmit: SUBMIT,
  rbClaim: CLAIM,
  rbUnqueue: UNQUEUE,
  rbAppend: APPEND,
  rbRequeue: REQUEUE,
  rbForget: FORGET,
  rbSweep: SWEEP,
  rbClaimKey: CLAIM_KEY,
  rbReleaseKey: RELEASE_KEY,
  rbTouch: TOUCH,
  rbClaimWebhooks: CLAIM_WEBHOOKS,
} as const;

export type ScriptName = keyof typeof SCRIPTS;
