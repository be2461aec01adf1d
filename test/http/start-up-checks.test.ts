import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { captureLog } from '../support/captured-log.js';
import { startTestBridge } from '../support/start-test-bridge.js';
import { unusedPort } from '../support/unused-port.js';

/** What start-up checks before the bridge listens (docs/configuration.md). */
describe('start-up', () => {
  it('stops when the ORS server does not have RUNBRIDGE_DEFAULT_ENV, naming the ones it has', async () => {
    const started = startTestBridge({ RUNBRIDGE_DEFAULT_ENV: 'nope' });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(
      /RUNBRIDGE_DEFAULT_ENV=nope: .*Unknown environment "nope"\. Available: arith, workspace\./,
    );
  });

  it('takes RUNBRIDGE_DEFAULT_ENV in any case, as ORS servers match names', async () => {
    const bridge = await startTestBridge({ RUNBRIDGE_DEFAULT_ENV: 'Arith' });
    try {
      const runId = await bridge.startRun();
      expect((await bridge.readEvents(runId))[0]).toMatchObject({ event: 'run.started', env: 'Arith' });
    } finally {
      await bridge.shutdown();
    }
  });

  it('starts, and says the check was skipped, when a remote ORS server does not answer yet', async () => {
    const port = await unusedPort();
    const log = captureLog('warn');
    const bridge = await startTestBridge(
      { ORS_URL: `http://127.0.0.1:${port}`, RUNBRIDGE_DEFAULT_ENV: 'anything' },
      { logger: log.logger },
    );
    await bridge.shutdown();
    expect(log.messages()).toEqual([
      'Starting without the ORS server (RUNBRIDGE_DEFAULT_ENV=anything was not checked)',
    ]);
    expect(log.lines()[0]?.err).toMatchObject({ code: 'ors_unavailable' });
  }, 30_000);
});
