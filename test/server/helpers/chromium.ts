import puppeteer, { type Browser } from 'puppeteer-core';

// Debian's Chromium for the end-to-end tests (never a browser a package downloads), headless, as root needs it.

export const CHROMIUM = process.env.CHROME_PATH ?? '/usr/bin/chromium';

/** A headless Chromium with nothing of its own running in the background (updates, sync, first-run pages). */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
