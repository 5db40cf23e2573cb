// Users of the service's web flow in Chromium (skipped or required as the harness says): one browser
// for the test file, each user in a browsing context of their own (so with no cookie at the
// provider), every navigation of their page recorded, redirects included, to search for tokens in
// URLs.
import { afterAll, expect } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signInAtProvider } from './provider-browser.js';

export interface Agent {
  page: Page;
  /** Every navigation request of the page, redirects included, oldest first. */
  navigations: { method: string; url: string }[];
  /**
   * Opens `url` (an authorization URL, or the service's authorize route), signs in at the provider's
   * pages as `login` (allowing, or cancelling with `consent: false`), and resolves with the URL under
   * `back` (the frontend's page; the browser's unless given) it ends at.
   */
  signIn(url: string, login: string, options?: { back?: string; consent?: boolean }): Promise<string>;
}

/**
 * The test file's Chromium, launched when a test first asks for it and closed after the last:
 * `browse(work)` runs `work` with `agent()`, which opens a new user who signs in at the pages of
 * `at().issuer` and comes back to `at().back`. Each user's context is closed when `work` ends.
 */
export function useBrowser(at: () => { issuer: string; back: string }): (work: (agent: () => Promise<Agent>) => Promise<void>) => Promise<void> {
  let launched: Promise<Browser> | undefined;
  afterAll(async () => {
    await (await launched)?.close();
  });
  return async (work) => {
    launched ??= launchChromium();
    const browser = await launched;
    const { issuer, back: home } = at();
    const contexts: Awaited<ReturnType<Browser['newContext']>>[] = [];
    try {
      await work(async () => {
        const context = await browser.newContext();
        contexts.push(context);
        const page = await context.newPage();
        const navigations: Agent['navigations'] = [];
        page.on('request', (request) => {
          if (request.isNavigationRequest()) navigations.push({ method: request.method(), url: request.url() });
        });
        return {
          page,
          navigations,
          async signIn(url, login, { back = home, consent = true } = {}) {
            await page.goto(url);
            expect(page.url()).toMatch(new RegExp(`^${issuer}/interaction/[\\w-]+$`));
            await signInAtProvider(page, { login, consent });
            await page.waitForURL((to) => to.href.startsWith(back));
            return page.url();
          },
        };
      });
    } finally {
      for (const context of contexts) await context.close();
    }
  };
}

/** The URLs an agent's page navigated to. */
export const urlsOf = (agent: Agent) => agent.navigations.map((navigation) => navigation.url);
