// Headless Chromium (the Debian package) driven by playwright-core.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** The Chromium binary: $CHROMIUM, else `chromium` on the PATH; null if absent. */
export function findChromium() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export const HOW_TO_ENABLE =
  'the browser suite needs Chromium: run `make test` as root (it installs the Debian package `chromium`), ' +
  'or `sudo apt-get install chromium`, or set CHROMIUM=/path/to/chrome';

/** Launches Chromium with a fresh profile; returns { context, close }. */
export async function launch(executablePath) {
  const profile = mkdtempSync(join(tmpdir(), 'stoic-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
