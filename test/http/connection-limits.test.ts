import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { openFileLimit } from '../../src/config/open-file-limit.js';
import { connectionLimits } from '../../src/http/connection-limits.js';

const settings = () => {
  const { maxConnections, maxStreams, maxStreamsPerKey } = loadConfig({});
  return { maxConnections, maxStreams, maxStreamsPerKey };
};

describe('connectionLimits', () => {
  it('takes the settings as they are when the open-file limit holds them, a key never past all', () => {
    expect(connectionLimits({ maxConnections: 500, maxStreams: 100, maxStreamsPerKey: 40 }, 20_000)).toEqual({
      maxConnections: 500,
      maxStreams: 100,
      maxStreamsPerKey: 40,
    });
    expect(connectionLimits({ maxConnections: 768, maxStreams: 691, maxStreamsPerKey: 1000 }, 1024)).toEqual({
      maxConnections: 768,
      maxStreams: 691,
      maxStreamsPerKey: 691,
    });
    expect(
      connectionLimits(
        { maxConnections: Number.POSITIVE_INFINITY, maxStreams: 10_000, maxStreamsPerKey: 1000 },
        undefined,
      ),
    ).toEqual({ maxConnections: Number.POSITIVE_INFINITY, maxStreams: 10_000, maxStreamsPerKey: 1000 });
  });

  it("takes the settings' own defaults under this process's open-file limit", () => {
    const defaults = settings();
    expect(connectionLimits(defaults, openFileLimit())).toEqual(defaults);
  });

  it.each([
    [{ maxConnections: 19_000, maxStreams: 100 }, 20_000, /RUNBRIDGE_MAX_CONNECTIONS=19000 .* at most 15000/],
    [{ maxConnections: 15_000, maxStreams: 15_000 }, 20_000, /RUNBRIDGE_MAX_STREAMS=15000 .* at most 13500/],
    [{ maxConnections: 100, maxStreams: 95 }, undefined, /RUNBRIDGE_MAX_STREAMS=95 .* at most 90/],
    [{ maxConnections: 1, maxStreams: 1 }, 200, /open-file limit is 200/],
  ])(
    'refuses settings that would let clients take the last descriptors or crowd out /health (%j, ulimit %s)',
    (caps, limit, reason) => {
      const given = { ...caps, maxStreamsPerKey: 1000 };
      expect(() => connectionLimits(given, limit)).toThrow(ConfigError);
      expect(() => connectionLimits(given, limit)).toThrow(reason);
    },
  );
});
