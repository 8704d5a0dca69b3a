/**
 * Chromium for the browser tests: Debian's `chromium` package (`.ci/run` installs it when missing),
 * driven by playwright-core, which downloads no browser of its own.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Chromium is looked for, in order, after `CHROMIUM_PATH`. */
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The flags Chromium starts with: headless as root (`--no-sandbox`), and nothing that reaches for
 * the network on its own — on a closed network its background connections are refused by the dozen.
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium binary: `CHROMIUM_PATH` when set (it must exist), else the first of {@link CHROMIUM_PATHS} that does; undefined when none. */
export function findChromium(): string | undefined {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`CHROMIUM_PATH is ${chosen}, which does not exist: point it at a Chromium binary or unset it`);
    return chosen;
  }
  return CHROMIUM_PATHS.find((path) => existsSync(path));
}

/**
 * `describe` for a suite that needs Chromium. It always runs: Chromium is one of the README's
 * system packages, like redis-server, and without it the suite fails in {@link launchChromium}
 * with a message saying what to install — a fresh clone's `npm test` skips nothing.
 */
export function describeInChromium(name: string, suite: () => void): void {
  describe(name, suite);
}

/** Starts headless Chromium with {@link CHROMIUM_FLAGS} and a fresh profile. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(`no Chromium at ${CHROMIUM_PATHS.join(' or ')} and CHROMIUM_PATH is not set (Debian: apt-get install chromium)`);
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
}
