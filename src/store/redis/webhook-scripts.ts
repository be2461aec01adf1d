import { define } from './define-script.js';

/**
 * The Lua script of the webhook outbox (`RedisWebhookOutbox`), with the runs' prelude (`K`, `A`, `num`,
 * `REST`, see `redis-scripts.ts`). A pending delivery sits in the due set of every key (`wh:due`) and in
 * its own key's (`wh:due:<owner>`), with the same score; claiming takes from the keys' sets in turn.
 */

/**
 * Claims webhook deliveries due by `now` (at most `max`) for one instance, the keys with deliveries due
 * taking turns — one each, its oldest due, starting with the first key after `lastFirst` — and none
 * past `perOwner` less its in-flight count (the list after the arguments: owner, count, …). Each claimed
 * one is due again at `leaseUntil`, so no other instance takes it while its attempt runs, and one whose
 * instance died is taken again after the lease. Deliveries a version without the keys' sets left in
 * `wh:due` alone are put in their key's first (a record without an owner in the key `''`). Returns the
 * key that took the first turn (`''` when none did), then the claimed deliveries' records.
 */
const CLAIM_WEBHOOKS = define(
  ['now', 'max', 'leaseUntil', 'perOwner', 'lastFirst'],
  `
if redis.call('ZCARD', K.webhooksDue) > redis.call('HLEN', K.webhookOwnerOf) then
  local all = redis.call('ZRANGE', K.webhooksDue, 0, -1, 'WITHSCORES')
  for i = 1, #all, 2 do
    local id = all[i]
    if redis.call('HEXISTS', K.webhookOwnerOf, id) == 0 then
      local record = redis.call('GET', K.webhook(id))
      if record then
        local owner = cjson.decode(record).owner
        if type(owner) ~= 'string' then owner = '' end
        redis.call('HSET', K.webhookOwnerOf, id, owner)
        redis.call('ZADD', K.ownerWebhooksDue(owner), all[i + 1], id)
        redis.call('SADD', K.webhookOwners, owner)
      else
        redis.call('ZREM', K.webhooksDue, id)
      end
    end
  end
end
local inFlight = {}
for i = REST, #ARGV, 2 do inFlight[ARGV[i]] = num(ARGV[i + 1]) end
local owners = redis.call('SMEMBERS', K.webhookOwners)
table.sort(owners)
local start = 1
for i, owner in ipairs(owners) do
  if owner > A.lastFirst then start = i break end
end
local order, left = {}, {}
for i = 0, #owners - 1 do
  local owner = owners[((start - 1 + i) % #owners) + 1]
  table.insert(order, owner)
  left[owner] = num(A.perOwner) - (inFlight[owner] or 0)
end
local max = num(A.max)
local first = nil
local records = {}
local taking = true
while taking and #records < max do
  taking = false
  for _, owner in ipairs(order) do
    if #records >= max then break end
    local queue = K.ownerWebhooksDue(owner)
    while left[owner] > 0 do
      local ids = redis.call('ZRANGEBYSCORE', queue, '-inf', A.now, 'LIMIT', 0, 1)
      if #ids == 0 then
        if redis.call('ZCARD', queue) == 0 then redis.call('SREM', K.webhookOwners, owner) end
        left[owner] = 0
      else
        local id = ids[1]
        local record = redis.call('GET', K.webhook(id))
        if record then
          redis.call('ZADD', queue, A.leaseUntil, id)
          redis.call('ZADD', K.webhooksDue, A.leaseUntil, id)
          table.insert(records, record)
          left[owner] = left[owner] - 1
          first = first or owner
          taking = true
          break
        end
        redis.call('ZREM', queue, id)
        redis.call('ZREM', K.webhooksDue, id)
        redis.call('HDEL', K.webhookOwnerOf, id)
      end
    end
  end
end
table.insert(records, 1, first or '')
return records
`,
  true,
);

/** The webhook outbox's scripts, by the command name each is defined under. */
export const WEBHOOK_SCRIPTS = { rbClaimWebhooks: CLAIM_WEBHOOKS } as const;
