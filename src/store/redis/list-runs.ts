import type { RunListItem } from '../../protocol/run-snapshot.js';
import { invalidListCursor, type RunListQuery, type RunPage } from '../../runs/run-store.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/** Runs read per round while filling a page (a status filter may skip many). */
const CHUNK = 200;

/**
 * `owner`'s runs from Redis, newest first, one page at a time: the owner's sorted set gives the
 * order, each run's hash its list item (`snapshot`, as `listItemOf` makes it). Runs whose keys expired meanwhile are skipped and dropped
 * from the set. A cursor naming no run of `owner`'s is a 400, as with the memory store.
 */
export async function listRuns(
  connection: RedisConnection,
  keys: RedisKeys,
  owner: string,
  query: RunListQuery,
): Promise<RunPage> {
  const index = keys.owner(owner);
  let start = 0;
  if (query.after !== undefined) {
    const after = query.after;
    const [rank, exists] = await connection.run(() =>
      Promise.all([connection.command.zrevrank(index, after), connection.command.exists(keys.run(after))]),
    );
    if (rank === null || !exists) throw invalidListCursor(after);
    start = rank + 1;
  }
  const data: RunListItem[] = [];
  for (;;) {
    const ids = await connection.run(() => connection.command.zrevrange(index, start, start + CHUNK - 1));
    if (ids.length === 0) return { data, next: null };
    const pipeline = connection.command.pipeline();
    for (const id of ids) pipeline.hget(keys.run(id), 'snapshot');
    const replies = (await connection.run(() => pipeline.exec())) ?? [];
    const gone: string[] = [];
    for (const [position, id] of ids.entries()) {
      const json = replies[position]?.[1] as string | null | undefined;
      if (!json) {
        gone.push(id);
        continue;
      }
      const snapshot = JSON.parse(json) as RunListItem;
      if (query.status && snapshot.status !== query.status) continue;
      if (data.length === query.limit) {
        await dropGone(connection, index, gone);
        return { data, next: data.at(-1)!.run_id };
      }
      data.push(snapshot);
    }
    await dropGone(connection, index, gone);
    // Ranks shift down by what was dropped.
    start += ids.length - gone.length;
  }
}

async function dropGone(connection: RedisConnection, index: string, gone: string[]): Promise<void> {
  if (gone.length > 0) await connection.run(() => connection.command.zrem(index, ...gone));
}
