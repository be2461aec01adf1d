import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A headless Chromium with its own throw-away profile. */
export interface LaunchedChromium {
  context: BrowserContext;
  /** Closes the browser, then removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Launches the system's `/usr/bin/chromium` (the Debian package; playwright-core downloads no
 * browser) headless, in a fresh profile under the temp directory. Throws, saying how to install it,
 * when it is missing.
 */
export async function launchChromium(): Promise<LaunchedChromium> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: run scripts/ensure-test-tools.sh (npm test runs it first; it installs the Debian package chromium).`,
    );
  const profile = await mkdtemp(join(tmpdir(), 'runbridge-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
    });
    return {
      context,
      async close() {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}
