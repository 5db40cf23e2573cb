// The test provider in Chromium (Debian's, driven by playwright-core as the passkey tests do): a
// user at its login and consent pages, by their labels and the keyboard.
import { it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// CI installs Chromium, so there a missing browser fails the test; elsewhere it is skipped, saying so.
const skipBrowser = !existsSync(CHROMIUM) && !process.env.CI;
if (skipBrowser) console.warn(`${CHROMIUM} not found: the identity provider browser tests are skipped (apt-get install chromium to run them)`);
/** `it`, or `it.skip` where Chromium is missing outside CI. */
export const inBrowser = skipBrowser ? it.skip : it;

/** A headless Chromium, as the tests run it; the caller closes it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: CI must install it (apt-get install -y chromium)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Runs `work` on a page of a fresh browser (no cookie of an earlier sign-in at the provider). */
export async function withPage(work: (page: Page) => Promise<void>): Promise<void> {
  const browser = await launchChromium();
  try {
    await work(await browser.newPage());
  } finally {
    await browser.close();
  }
}

/**
 * On the provider's login page (where an authorization request lands): types `login` (an account's
 * sub) and presses Enter, then on the consent page allows (`consent`, the default) or cancels, which
 * returns the user to the client with `error=access_denied`. Resolves once the choice is submitted.
 */
export async function signInAtProvider(page: Page, { login, consent = true }: { login: string; consent?: boolean }): Promise<void> {
  const account = page.getByLabel('Account');
  await account.fill(login);
  await account.press('Enter');
  await page.getByRole('heading', { name: /^Allow .* to access your account\?$/ }).waitFor();
  await page.getByRole('button', { name: consent ? 'Allow' : 'Cancel' }).click();
}
