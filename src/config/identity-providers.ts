import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { commaList } from './list.js';

/** One external OpenID Connect provider, as IDENTITY_PROVIDERS names it. */
export interface IdentityProviderConfig {
  /** Lower-case slug: `google`, `apple`, `microsoft`, `corp-sso`; in the routes and in identities. */
  id: string;
  /** What a sign-in button says. */
  name: string;
  /** The issuer; its `/.well-known/openid-configuration` is discovered. */
  issuer: string;
  clientId: string;
  /** Absent: a public client (PKCE alone). Apple's is a JWT the operator renews (see the README). */
  clientSecret?: string;
  /** Asked for at the provider; `openid` always among them. */
  scopes: string[];
  /** Client ids of the same provider whose ID tokens the native flow accepts too (the iOS and Android apps'). */
  extraAudiences: string[];
  /** How the provider returns to the callback: `query` (a GET), or `form_post` (a POST, as Apple does when name or email is asked). */
  responseMode: 'query' | 'form_post';
}

/** The external sign-in settings: the providers, where this service is reachable, where a web flow may return. */
export interface IdentityConfig {
  providers: IdentityProviderConfig[];
  /** The service's external base URL, without a trailing slash: the callbacks are under it. */
  publicUrl: string;
  /** The exact frontend URLs a web flow may return to. */
  returnUrls: string[];
  /** Every request to a provider (discovery, JWKS, token endpoint) gives up after this long. */
  timeoutMs: number;
  /**
   * OIDC_REQUIRE_BINDING: a sign-in web flow must be bound to the frontend that starts it (a
   * codeChallenge at the start, its verifier at the exchange); an unbound result is a bearer code that
   * a login CSRF plants in a victim's browser (API.md 10.0). False: the binding is optional.
   */
  requireBinding: boolean;
}

const SLUG = /^[a-z][a-z0-9-]{0,31}$/;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

const providerSchema = z
  .object({
    id: z.string().regex(SLUG, 'must be a lower-case slug: a letter, then letters, digits or hyphens (at most 32)'),
    name: z.string().min(1).max(64),
    issuer: z.string().refine(isIssuer, 'must be an https:// URL (http:// only on a loopback address), without query or fragment'),
    clientId: z.string().min(1).max(256),
    clientSecret: z.string().min(1).max(4096).optional(),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be scope tokens'))
      .max(20)
      .refine((scopes) => scopes.includes('openid'), 'must include openid')
      .optional(),
    extraAudiences: z.array(z.string().min(1).max(256)).max(20).optional(),
    responseMode: z.enum(['query', 'form_post']).optional(),
  })
  .strict();

function isIssuer(value: string): boolean {
  try {
    const url = new URL(value);
    if (url.search || url.hash || url.username || url.password) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  } catch {
    return false;
  }
}

function isPageUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && !url.hash && !url.username;
  } catch {
    return false;
  }
}

/**
 * IDENTITY_PROVIDERS (a JSON array, or `@path` of a file holding one), PUBLIC_URL and
 * OIDC_RETURN_URLS, read once (OIDC_TIMEOUT_MS and OIDC_REQUIRE_BINDING come parsed); every
 * problem (an unknown field, a duplicate id, a plain-http issuer elsewhere than on loopback) is added
 * to `problems`, naming the provider.
 */
export function parseIdentity(e: { providers?: string; publicUrl?: string; returnUrls: string; port: number; timeoutMs: number; requireBinding: boolean }, problems: string[]): IdentityConfig {
  const publicUrl = (e.publicUrl ?? `http://localhost:${e.port}`).replace(/\/+$/, '');
  if (!isPageUrl(publicUrl) || new URL(publicUrl).search) problems.push('PUBLIC_URL: must be the http(s) URL the service is reached at, without query or fragment');
  const returnUrls = commaList(e.returnUrls);
  for (const url of returnUrls) if (!isPageUrl(url)) problems.push(`OIDC_RETURN_URLS: ${url} is not an http(s) URL without a fragment`);
  const providers: IdentityProviderConfig[] = [];
  const raw = readProviders(e.providers, problems);
  raw.forEach((entry, index) => {
    const parsed = providerSchema.safeParse(entry);
    const label = typeof (entry as { id?: unknown })?.id === 'string' ? `provider "${(entry as { id: string }).id}"` : `provider #${index + 1}`;
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const where = issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : `${issue.path.join('.') || '(entry)'} ${issue.message}`;
        problems.push(`IDENTITY_PROVIDERS: ${label}: ${where}`);
      }
      return;
    }
    const p = parsed.data;
    if (providers.some((other) => other.id === p.id)) {
      problems.push(`IDENTITY_PROVIDERS: the id "${p.id}" is used twice`);
      return;
    }
    providers.push({
      id: p.id,
      name: p.name,
      issuer: p.issuer,
      clientId: p.clientId,
      clientSecret: p.clientSecret,
      scopes: p.scopes ?? ['openid', 'email', 'profile'],
      extraAudiences: p.extraAudiences ?? [],
      responseMode: p.responseMode ?? 'query',
    });
  });
  return { providers, publicUrl, returnUrls, timeoutMs: e.timeoutMs, requireBinding: e.requireBinding };
}

function readProviders(value: string | undefined, problems: string[]): unknown[] {
  if (!value) return [];
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      problems.push(`IDENTITY_PROVIDERS: ${value.slice(1)} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      return [];
    }
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // reported below
  }
  problems.push('IDENTITY_PROVIDERS: must be a JSON array of providers, or @ followed by the path of a file holding one');
  return [];
}
