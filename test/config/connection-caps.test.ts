import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { connectionCeiling, defaultMaxStreams } from '../../src/config/connection-caps.js';
import { loadConfig } from '../../src/config/index.js';
import { openFileLimit } from '../../src/config/open-file-limit.js';

describe('the connection caps of the settings', () => {
  it("reads this process's open-file limit, as ulimit -n tells it", () => {
    expect(openFileLimit()).toBe(Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim()));
  });

  it('default to the open-file limit less a quarter (at least 256), and streams to a tenth fewer, at most 10 000', () => {
    const limit = openFileLimit()!;
    const connections = limit - Math.max(256, Math.ceil(limit / 4));
    expect(loadConfig({})).toMatchObject({
      maxConnections: connections,
      maxStreams: Math.min(10_000, connections - Math.max(8, Math.ceil(connections / 10))),
    });
    expect(loadConfig({ RUNBRIDGE_MAX_CONNECTIONS: '500' })).toMatchObject({ maxConnections: 500, maxStreams: 450 });
    expect(loadConfig({ RUNBRIDGE_MAX_STREAMS: '7' })).toMatchObject({ maxConnections: connections, maxStreams: 7 });
  });

  it('keep connections a quarter (at least 256) below any open-file limit, and streams a tenth below them', () => {
    expect([connectionCeiling(20_000), defaultMaxStreams(15_000)]).toEqual([15_000, 10_000]);
    expect([connectionCeiling(1024), defaultMaxStreams(768)]).toEqual([768, 691]);
    expect([connectionCeiling(undefined), defaultMaxStreams(Number.POSITIVE_INFINITY)]).toEqual([
      Number.POSITIVE_INFINITY,
      10_000,
    ]);
  });
});
