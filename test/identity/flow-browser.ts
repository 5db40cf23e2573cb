// Users of the service's web flow in Chromium (the harness's browser, skipped or required as it
// says): each in a browsing context of their own, so with no cookie at the provider, and every
// navigation of their page recorded, redirects included, to search for tokens in URLs.
import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { signInAtProvider, withPage } from './provider-browser.js';

export interface Agent {
  page: Page;
  /** Every navigation request of the page, redirects included, oldest first. */
  navigations: { method: string; url: string }[];
  /**
   * Opens `url` (an authorization URL, or the service's authorize route), signs in at the provider's
   * pages as `login` (allowing, or cancelling with `consent: false`), and resolves with the URL under
   * `back` (the frontend's page; browse's unless given) it ends at.
   */
  signIn(url: string, login: string, options?: { back?: string; consent?: boolean }): Promise<string>;
}

/** Runs `work` with a fresh Chromium; `agent()` opens a new user in it, who signs in at `issuer`'s pages and comes back to `back`. */
export function browse({ issuer, back: home }: { issuer: string; back: string }, work: (agent: () => Promise<Agent>) => Promise<void>): Promise<void> {
  return withPage(async (first) => {
    const browser = first.context().browser()!;
    await work(async () => {
      const page = await (await browser.newContext()).newPage();
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
          await page.waitForURL((at) => at.href.startsWith(back));
          return page.url();
        },
      };
    });
  });
}

/** The URLs an agent's page navigated to. */
export const urlsOf = (agent: Agent) => agent.navigations.map((navigation) => navigation.url);
