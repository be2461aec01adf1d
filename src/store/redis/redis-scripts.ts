import { A2A_SCRIPTS } from './a2a-scripts.js';
import { define, type ScriptSpec } from './define-script.js';
import { luaKeyFunctions } from './redis-keys.js';
import { ROLLOUT_SCRIPTS } from './rollout-scripts.js';
import { WEBHOOK_SCRIPTS } from './webhook-scripts.js';
import { WRITE_BACK_SCRIPTS } from './write-back-scripts.js';

/**
 * The Lua scripts of the Redis store. Each runs atomically in Redis, which is what makes the queue,
 * the quotas, the byte budgets and the fencing of appends hold with any number of instances. A script
 * names its arguments (`A.id`, `A.owner`, …) in {@link SCRIPTS}; the caller passes them by name
 * (`RedisConnection.script`), and the prelude written here maps them, so no script reads ARGV by
 * position. Keys come from the key layout (`K.run(id)`, `K.queue`, see `redis-keys.ts`). A run's
 * `state` field is where the queue has it — `queued`, `running` or `ended` — for the scripts alone;
 * its status is in its snapshot, folded from its log by the bridge. Numbers travel as strings and
 * come back as integers.
 */

/** Helpers shared by the scripts (after the prelude). */
const HELPERS = `
local function num(value) return tonumber(value or '0') or 0 end
local function add(hash, field, delta)
  local value = redis.call('HINCRBY', hash, field, delta)
  if value <= 0 then redis.call('HDEL', hash, field) end
end
-- Forgets run id: its keys, its place in the indexes, its bytes.
local function forget(id)
  local run = K.run(id)
  local owner = redis.call('HGET', run, 'owner')
  local idem = redis.call('HGET', run, 'idem')
  local bytes = num(redis.call('HGET', K.runBytes, id))
  redis.call('DECRBY', K.storedBytes, bytes)
  redis.call('HDEL', K.runBytes, id)
  redis.call('ZREM', K.finished, id)
  if owner then
    redis.call('ZREM', K.owner(owner), id)
    redis.call('ZREM', K.ownerFinished(owner), id)
    add(K.ownerBytes, owner, -bytes)
  end
  if idem and idem ~= '' then redis.call('DEL', idem) end
  redis.call('DEL', run, K.log(id), K.secrets(id))
end
-- Takes queued run id out of the queue for instance: it now runs there. Returns record and secrets.
local function take(id, owner, instance)
  local run = K.run(id)
  redis.call('ZREM', K.queue, id)
  add(K.queuedByOwner, owner, -1)
  redis.call('DECRBY', K.queuedBytes, num(redis.call('HGET', run, 'rbytes')))
  redis.call('HINCRBY', K.runningByOwner, owner, 1)
  redis.call('HSET', K.running, id, instance)
  redis.call('HSET', run, 'state', 'running', 'holder', instance)
  return { id, redis.call('HGET', run, 'record'), redis.call('GET', K.secrets(id)) or '' }
end
`;

/**
 * Admits a new run. Forgets the owner's own longest-finished runs (never another owner's) while its share
 * or the whole byte budget lacks room. Returns `{started}`, `{queued}`, or `{refused, code, held}` (`code`:
 * `key_store_full`, `store_full`, `queue_full`, `key_queue_full` or `queue_bytes`).
 */
const SUBMIT = define(
  [
    'id',
    'owner',
    'record',
    'snapshot',
    'createdAt',
    'storedBytes',
    'requestBytes',
    'idemKey',
    'idemValue',
    'startHere',
    'instance',
    'maxQueued',
    'maxRunningPerKey',
    'maxQueuedPerKey',
    'maxQueuedBytes',
    'maxStoredBytes',
    'maxStoredBytesPerKey',
    'sealedSecrets',
    'listed',
  ],
  `
local id, owner, stored = A.id, A.owner, num(A.storedBytes)
local held = num(redis.call('GET', K.storedBytes))
local mine = num(redis.call('HGET', K.ownerBytes, owner))
while held + stored > num(A.maxStoredBytes) or mine + stored > num(A.maxStoredBytesPerKey) do
  local oldest = redis.call('ZRANGE', K.ownerFinished(owner), 0, 0)
  if #oldest == 0 then break end
  forget(oldest[1])
  held = num(redis.call('GET', K.storedBytes))
  mine = num(redis.call('HGET', K.ownerBytes, owner))
end
if mine + stored > num(A.maxStoredBytesPerKey) then return { 'refused', 'key_store_full', mine } end
if held + stored > num(A.maxStoredBytes) then return { 'refused', 'store_full', held } end
local run = K.run(id)
local kind = 'queued'
if A.startHere == '1' and num(redis.call('HGET', K.runningByOwner, owner)) < num(A.maxRunningPerKey) then
  redis.call('HINCRBY', K.runningByOwner, owner, 1)
  redis.call('HSET', K.running, id, A.instance)
  redis.call('HSET', run, 'state', 'running', 'holder', A.instance)
  kind = 'started'
else
  local queued = redis.call('ZCARD', K.queue)
  if queued >= num(A.maxQueued) then return { 'refused', 'queue_full', queued } end
  local mine = num(redis.call('HGET', K.queuedByOwner, owner))
  if mine >= num(A.maxQueuedPerKey) then return { 'refused', 'key_queue_full', mine } end
  local bytes = num(redis.call('GET', K.queuedBytes))
  if bytes + num(A.requestBytes) > num(A.maxQueuedBytes) then return { 'refused', 'queue_bytes', bytes } end
  local order = redis.call('INCR', K.queueOrder)
  redis.call('ZADD', K.queue, order, id)
  redis.call('HINCRBY', K.queuedByOwner, owner, 1)
  redis.call('INCRBY', K.queuedBytes, num(A.requestBytes))
  redis.call('HSET', run, 'state', 'queued', 'holder', '', 'order', order, 'rbytes', num(A.requestBytes))
end
if A.sealedSecrets ~= '' then redis.call('SET', K.secrets(id), A.sealedSecrets) end
redis.call('HSET', run, 'owner', owner, 'record', A.record, 'snapshot', A.snapshot, 'last_seq', -1,
  'touched_at', A.createdAt, 'idem', A.idemKey, 'bytes', stored, 'listed', A.listed)
if A.listed == '1' then redis.call('ZADD', K.owner(owner), A.createdAt, id) end
redis.call('INCRBY', K.storedBytes, stored)
redis.call('HINCRBY', K.ownerBytes, owner, stored)
redis.call('HSET', K.runBytes, id, stored)
if A.idemKey ~= '' then redis.call('SET', A.idemKey, A.idemValue) end
return { kind }
`,
);

/**
 * Takes up to `max` queued runs for `instance`, oldest first, skipping owners at their running quota.
 * Returns `{id, record, sealed secrets or ''}` for each.
 */
const CLAIM = define(
  ['instance', 'max', 'maxRunningPerKey'],
  `
local max, quota = num(A.max), num(A.maxRunningPerKey)
local taken = {}
for _, id in ipairs(redis.call('ZRANGE', K.queue, 0, -1)) do
  if #taken >= max then break end
  local owner = redis.call('HGET', K.run(id), 'owner')
  if not owner then
    redis.call('ZREM', K.queue, id)
  elseif num(redis.call('HGET', K.runningByOwner, owner)) < quota then
    table.insert(taken, take(id, owner, A.instance))
  end
end
return taken
`,
);

/** Takes queued run `id` for `instance` (to cancel it); `{}` when it is not queued. */
const UNQUEUE = define(
  ['id', 'instance'],
  `
if not redis.call('ZSCORE', K.queue, A.id) then return {} end
return take(A.id, redis.call('HGET', K.run(A.id), 'owner'), A.instance)
`,
);

/**
 * Appends entries to run `id`'s log, fenced: only while its holder is `holder`, the log ends at seq
 * `first` - 1, and (for `lease` naming a lease) that lease is gone. The entries follow the named
 * arguments: event JSON and detail JSON (or '') per entry. A terminal batch (`finishedAt` set) releases
 * the run's slot, notes who ended it and sets the expiry of its keys; `messagesTaken` (the batch's
 * `message.received`) lowers the count of a person's messages waiting. Returns `ok`, `gone`, `fenced` or
 * `alive`; or, to its holder, what Redis holds when that is not what it expected — an append whose answer
 * was lost may have landed: `{gap, last_seq}` while the run is still its own, `{ended, last_seq}` once
 * the holder's own terminal batch ended it.
 */
const APPEND = define(
  ['id', 'holder', 'first', 'count', 'snapshot', 'bytes', 'finishedAt', 'expireMs', 'lease', 'messagesTaken'],
  `
local id, first, n = A.id, num(A.first), num(A.count)
local run = K.run(id)
local holder = redis.call('HGET', run, 'holder')
if not holder then return 'gone' end
local last = num(redis.call('HGET', run, 'last_seq'))
if holder ~= A.holder then
  if A.lease == '' and redis.call('HGET', run, 'ended_by') == A.holder then return { 'ended', last } end
  return 'fenced'
end
if A.lease ~= '' and redis.call('EXISTS', A.lease) == 1 then return 'alive' end
if last ~= first - 1 then return { 'gap', last } end
local log = K.log(id)
for i = 0, n - 1 do
  local event, detail = ARGV[REST + 2 * i], ARGV[REST + 1 + 2 * i]
  if detail == '' then
    redis.call('XADD', log, '0-' .. (first + i + 1), 'e', event)
  else
    redis.call('XADD', log, '0-' .. (first + i + 1), 'e', event, 'd', detail)
  end
end
if first == 0 then redis.call('DEL', K.secrets(id)) end
redis.call('HSET', run, 'last_seq', first + n - 1, 'snapshot', A.snapshot)
if num(A.messagesTaken) > 0 then redis.call('HINCRBY', run, 'waiting', -num(A.messagesTaken)) end
local owner = redis.call('HGET', run, 'owner')
redis.call('HINCRBY', run, 'bytes', num(A.bytes))
redis.call('HINCRBY', K.runBytes, id, num(A.bytes))
redis.call('INCRBY', K.storedBytes, num(A.bytes))
redis.call('HINCRBY', K.ownerBytes, owner, num(A.bytes))
if A.finishedAt ~= '' then
  -- Ended by its holder itself, or (with a lease) for a holder that was lost.
  redis.call('HSET', run, 'state', 'ended', 'holder', '', 'finished_at', A.finishedAt,
    'ended_by', A.lease == '' and A.holder or '')
  redis.call('HDEL', K.running, id)
  add(K.runningByOwner, owner, -1)
  redis.call('ZADD', K.finished, A.finishedAt, id)
  redis.call('ZADD', K.ownerFinished(owner), A.finishedAt, id)
  redis.call('PEXPIRE', run, A.expireMs)
  redis.call('PEXPIRE', log, A.expireMs)
  local idem = redis.call('HGET', run, 'idem')
  if idem and idem ~= '' then redis.call('PEXPIRE', idem, A.expireMs) end
end
return 'ok'
`,
  true,
);

/**
 * Puts run `id`, taken by `holder` whose lease `lease` is gone before it wrote anything, back in the
 * queue at its old place, to be started elsewhere. Returns 1 when it did.
 */
const REQUEUE = define(
  ['id', 'holder', 'lease'],
  `
local id = A.id
local run = K.run(id)
if redis.call('HGET', run, 'holder') ~= A.holder or redis.call('EXISTS', A.lease) == 1 then return 0 end
if num(redis.call('HGET', run, 'last_seq')) ~= -1 then return 0 end
local owner = redis.call('HGET', run, 'owner')
redis.call('HDEL', K.running, id)
add(K.runningByOwner, owner, -1)
redis.call('ZADD', K.queue, num(redis.call('HGET', run, 'order')), id)
redis.call('HINCRBY', K.queuedByOwner, owner, 1)
redis.call('INCRBY', K.queuedBytes, num(redis.call('HGET', run, 'rbytes')))
redis.call('HSET', run, 'state', 'queued', 'holder', '')
return 1
`,
);

/**
 * Sends control message `payload` to the instance executing run `id`: `gone` when none does (the run is
 * queued, ended or forgotten); for a person's message (`isMessage` 1), `full` when `maxWaiting` already
 * wait unread (the count falls as the run appends their `message.received`); `here` when the run executes
 * on `instance` (the caller delivers it itself); `sent` once it is on the holder's control stream.
 */
const CONTROL = define(
  ['id', 'instance', 'payload', 'isMessage', 'maxWaiting'],
  `
local run = K.run(A.id)
local holder = redis.call('HGET', run, 'holder')
if not holder or holder == '' then return 'gone' end
if A.isMessage == '1' then
  if num(redis.call('HGET', run, 'waiting')) >= num(A.maxWaiting) then return 'full' end
  redis.call('HINCRBY', run, 'waiting', 1)
end
if holder == A.instance then return 'here' end
redis.call('XADD', K.control(holder), 'MAXLEN', '~', 1000, '*', 'run', A.id, 'message', A.payload)
return 'sent'
`,
);

/** Forgets finished run `id`; returns 0 (and keeps it) while it is queued or running. */
const FORGET = define(
  ['id'],
  `
if redis.call('HGET', K.run(A.id), 'state') ~= 'ended' then return 0 end
forget(A.id)
return 1
`,
);

/**
 * Forgets the runs finished at or before `finishedBy` (a run is kept for its retention, then forgotten,
 * as in memory); at most `most` per call. Returns how many it forgot. Within its retention a run is
 * forgotten only to make room for a new run of its own key ({@link SUBMIT}).
 */
const SWEEP = define(
  ['finishedBy', 'most'],
  `
local forgotten, most = 0, num(A.most)
for _, id in ipairs(redis.call('ZRANGEBYSCORE', K.finished, '-inf', A.finishedBy, 'LIMIT', 0, most)) do
  forget(id)
  forgotten = forgotten + 1
end
return forgotten
`,
);

/**
 * Claims idempotency key `key` for body hash `hash`: `{claimed}` (now pending, for `pendingMs`),
 * `{run, id}`, `{conflict}` or `{pending}`. A key naming a run that is gone is claimed afresh.
 */
const CLAIM_KEY = define(
  ['key', 'hash', 'pendingMs'],
  `
local value = redis.call('GET', A.key)
if value then
  local state, stored, id = string.match(value, '^(%a+):(%x+):?(.*)$')
  if stored ~= A.hash then return { 'conflict' } end
  if state == 'pending' then return { 'pending' } end
  if redis.call('EXISTS', K.run(id)) == 1 then return { 'run', id } end
end
redis.call('SET', A.key, 'pending:' .. A.hash, 'PX', A.pendingMs)
return { 'claimed' }
`,
);

/** Frees idempotency key `key` if it is still pending (its creation failed). */
const RELEASE_KEY = define(
  ['key'],
  `
local value = redis.call('GET', A.key)
if value and string.sub(value, 1, 8) == 'pending:' then redis.call('DEL', A.key) end
return 1
`,
);

/** Records that run `id` was touched at `at` (nothing when it is gone). */
const TOUCH = define(
  ['id', 'at'],
  `
local run = K.run(A.id)
if redis.call('EXISTS', run) == 1 then redis.call('HSET', run, 'touched_at', A.at) end
return 1
`,
);

/** Every script of the store, by the command name it is defined under. */
export const SCRIPTS = {
  rbSubmit: SUBMIT,
  rbClaim: CLAIM,
  rbUnqueue: UNQUEUE,
  rbAppend: APPEND,
  rbRequeue: REQUEUE,
  rbForget: FORGET,
  rbControl: CONTROL,
  rbSweep: SWEEP,
  rbClaimKey: CLAIM_KEY,
  rbReleaseKey: RELEASE_KEY,
  rbTouch: TOUCH,
  ...WEBHOOK_SCRIPTS,
  ...WRITE_BACK_SCRIPTS,
  ...ROLLOUT_SCRIPTS,
  ...A2A_SCRIPTS,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/** The named arguments of script `name`, each a string or a number. */
export type ScriptArgs<Name extends ScriptName> = Record<(typeof SCRIPTS)[Name]['args'][number], string | number>;

/**
 * The whole Lua of a script: the prefix from `ARGV[1]`, the key functions, its named arguments from
 * `ARGV[2]` on (`A.name`), where a list after them starts (`REST`), the helpers, then its body.
 */
export function scriptSource(spec: ScriptSpec): string {
  const names = spec.args.map((name, index) => `${name} = ARGV[${index + 2}]`).join(', ');
  return [
    'local p = ARGV[1]',
    luaKeyFunctions('p'),
    `local A = { ${names} }`,
    `local REST = ${spec.args.length + 2}`,
    HELPERS,
    spec.body,
  ].join('\n');
}

/** `args` in the order script `name` maps them, after `prefix`, followed by `rest`. */
export function scriptArgv<Name extends ScriptName>(
  name: Name,
  prefix: string,
  args: ScriptArgs<Name>,
  rest: ReadonlyArray<string | number> = [],
): Array<string | number> {
  const spec: ScriptSpec = SCRIPTS[name];
  if (rest.length > 0 && !spec.rest) throw new Error(`script ${name} takes no list after its arguments`);
  const named = args as Record<string, string | number>;
  return [prefix, ...spec.args.map((arg) => named[arg]!), ...rest];
}
