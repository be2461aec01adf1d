import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { connectionLimits, openFileLimit } from '../../src/http/connection-limits.js';

const defaults = { maxConnections: undefined, maxStreams: undefined, maxStreamsPerKey: 1000 };

describe('connectionLimits', () => {
  it("reads this process's open-file limit, as ulimit -n tells it", () => {
    expect(openFileLimit()).toBe(Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim()));
  });

  it('keeps connections a quarter (at least 256) below the open-file limit, and streams a tenth below them', () => {
    expect(connectionLimits(defaults, 20_000)).toEqual({
      maxConnections: 15_000,
      maxStreams: 10_000,
      maxStreamsPerKey: 1000,
    });
    expect(connectionLimits(defaults, 1024)).toEqual({ maxConnections: 768, maxStreams: 691, maxStreamsPerKey: 691 });
    expect(connectionLimits(defaults, undefined)).toEqual({
      maxConnections: Number.POSITIVE_INFINITY,
      maxStreams: 10_000,
      maxStreamsPerKey: 1000,
    });
    expect(connectionLimits({ maxConnections: 500, maxStreams: 100, maxStreamsPerKey: 40 }, 20_000)).toEqual({
      maxConnections: 500,
      maxStreams: 100,
      maxStreamsPerKey: 40,
    });
  });

  it.each([
    [{ ...defaults, maxConnections: 19_000 }, 20_000, /RUNBRIDGE_MAX_CONNECTIONS=19000 .* at most 15000/],
    [{ ...defaults, maxStreams: 15_000 }, 20_000, /RUNBRIDGE_MAX_STREAMS=15000 .* at most 13500/],
    [{ ...defaults, maxConnections: 100, maxStreams: 95 }, undefined, /RUNBRIDGE_MAX_STREAMS=95 .* at most 90/],
    [defaults, 200, /open-file limit is 200/],
  ])(
    'refuses settings that would let clients take the last descriptors or crowd out /health (%j, ulimit %s)',
    (settings, limit, reason) => {
      expect(() => connectionLimits(settings, limit)).toThrow(ConfigError);
      expect(() => connectionLimits(settings, limit)).toThrow(reason);
    },
  );
});
