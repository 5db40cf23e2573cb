import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import type { Message } from './i18n/messages';

/** Where the service serves the console; every page of it is a path below. */
const BASE = '/console';
const NAVIGATED = 'console:navigated';

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  window.addEventListener(NAVIGATED, listener);
  return () => {
    window.removeEventListener('popstate', listener);
    window.removeEventListener(NAVIGATED, listener);
  };
}

const current = () => location.pathname + location.search;

export interface Place {
  /** The path below /console: `/`, `/users/<id>`, `/audit`, `/webhooks`. */
  path: string;
  params: URLSearchParams;
}

/** The page's place, from the address bar: every page can be bookmarked, shared and reloaded. */
export function usePlace(): Place {
  const url = new URL(useSyncExternalStore(subscribe, current), location.origin);
  const path = url.pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
  return { path, params: url.searchParams };
}

/** The address of a console page: `to('/users/1', { events: cursor })`; empty parameters are left out. */
export function to(path: string, params: Record<string, string | null | undefined> = {}): string {
  const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => Boolean(entry[1])));
  const search = query.toString();
  return `${BASE}${path === '/' ? '' : path}${search ? `?${search}` : ''}`;
}

/**
 * Goes to `href`. A `notice` (an account deleted, shown on the search page) is kept in the history
 * entry itself: the page shows it however often it renders or mounts there, and the next page, which
 * has an entry of its own, does not.
 */
export function navigate(href: string, options: { replace?: boolean; notice?: Message } = {}): void {
  const state = options.notice ? { notice: options.notice } : null;
  if (options.replace) history.replaceState(state, '', href);
  else history.pushState(state, '', href);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The notice `navigate` left with the current history entry, if any. */
export function pageNotice(): Message | undefined {
  return (history.state as { notice?: Message } | null)?.notice;
}

/** A link that changes the page without reloading it; a new tab or window still opens the address. */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
