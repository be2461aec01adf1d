import { KEY_LAYOUT } from '../../src/store/redis/redis-keys.js';
import type { DocRegion } from './doc-regions.js';

/** The keys of the Redis store in docs/deployment.md, generated from its layout (`KEY_LAYOUT`). */
export const REDIS_KEYS_REGIONS: readonly DocRegion[] = [
  { file: 'docs/deployment.md', name: 'redis-keys', render: () => redisKeysTable() },
];

/** A Markdown table of every key of the layout: its name (`<id>` for the part that varies), type, what it holds. */
export function redisKeysTable(): string {
  const rows = Object.values(KEY_LAYOUT).map(({ key, type, holds }) => {
    const name = key.replace(/\{(\w+)\}/, '<$1>');
    return `| \`${name}\` | ${type} | ${holds.replaceAll('|', '\\|')} |`;
  });
  return [
    '| key, under `RUNBRIDGE_REDIS_PREFIX` (default `runbridge:`) | type | holds |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}
