// The external identity providers' settings (API.md 9.1), read once at start: IDENTITY_PROVIDERS (JSON
// or @file), PUBLIC_URL, OIDC_RETURN_URLS, OIDC_TIMEOUT_MS and OIDC_REQUIRE_BINDING; every bad value refused with a message
// that names the setting, the provider and what is wrong.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const CORP = { id: 'corp', name: 'Corp SSO', issuer: 'https://idp.example.com', clientId: 'meeting-web' };
const providers = (...entries: Record<string, unknown>[]) => ({ IDENTITY_PROVIDERS: JSON.stringify(entries) });

/** The problems of a configuration that must be refused. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`the configuration was accepted: ${JSON.stringify(env)}`);
}

const dir = mkdtempSync(join(tmpdir(), 'identity-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('IDENTITY_PROVIDERS', () => {
  it('is empty by default, and reads a provider with the defaults of its optional fields', () => {
    expect(loadConfig({}).identity.providers).toEqual([]);
    expect(loadConfig(providers(CORP)).identity.providers).toEqual([{ ...CORP, clientSecret: undefined, scopes: ['openid', 'email', 'profile'], extraAudiences: [], responseMode: 'query' }]);
    const full = { ...CORP, clientSecret: 's3cret', scopes: ['openid', 'email'], extraAudiences: ['meeting-ios', 'meeting-android'], responseMode: 'form_post' };
    expect(loadConfig(providers(full)).identity.providers).toEqual([full]);
  });

  it('refuses an unknown field, naming it and the provider', () => {
    expect(problemsOf(providers({ ...CORP, colour: 'blue' }))).toEqual(['IDENTITY_PROVIDERS: provider "corp": unknown field colour']);
  });

  it('refuses an id used twice', () => {
    expect(problemsOf(providers(CORP, { ...CORP, name: 'Corp again' }))).toEqual(['IDENTITY_PROVIDERS: the id "corp" is used twice']);
  });

  it.each(['http://idp.example.com', 'http://10.0.0.7:8080', 'http://localhost.example.com', 'http://127.0.0.1.nip.io', 'ftp://idp.example.com', 'https://idp.example.com/?tenant=1', 'https://idp.example.com/#top', 'https://user:pass@idp.example.com', 'idp.example.com'])(
    'refuses the issuer %s (https://, or http:// on loopback only; no query, fragment or credentials)',
    (issuer) => {
      expect(problemsOf(providers({ ...CORP, issuer }))).toEqual([expect.stringMatching(/^IDENTITY_PROVIDERS: provider "corp": issuer must be an https:\/\/ URL \(http:\/\/ only on a loopback address\)/)]);
    },
  );

  it.each(['http://127.0.0.1:8080', 'http://localhost:9000/realms/dev', 'http://[::1]:8080', 'https://accounts.google.com', 'https://login.microsoftonline.com/tenant-id/v2.0'])('accepts the issuer %s', (issuer) => {
    expect(loadConfig(providers({ ...CORP, issuer })).identity.providers[0]!.issuer).toBe(issuer);
  });

  it.each(['Corp', 'corp_sso', '1corp', 'corp sso', '', 'a'.repeat(33), 'corp/../admin'])('refuses the id %j, which is not a lower-case slug', (id) => {
    expect(problemsOf(providers({ ...CORP, id }))).toEqual([expect.stringMatching(/^IDENTITY_PROVIDERS: provider .*: id must be a lower-case slug/)]);
  });

  it.each(['google', 'corp-sso', 'a1', 'a'.repeat(32)])('accepts the id %s', (id) => {
    expect(loadConfig(providers({ ...CORP, id })).identity.providers[0]!.id).toBe(id);
  });

  it('refuses scopes without openid', () => {
    expect(problemsOf(providers({ ...CORP, scopes: ['email', 'profile'] }))).toEqual(['IDENTITY_PROVIDERS: provider "corp": scopes must include openid']);
  });

  it('refuses a missing required field, naming it', () => {
    const { clientId: _clientId, ...withoutClient } = CORP;
    expect(problemsOf(providers(withoutClient))).toEqual([expect.stringMatching(/^IDENTITY_PROVIDERS: provider "corp": clientId /)]);
  });

  it.each([['null', 'null'], ['a string', '"corp"'], ['an array', '[]']])('refuses an entry that is %s, naming it by its place', (_name, entry) => {
    expect(problemsOf({ IDENTITY_PROVIDERS: `[${JSON.stringify(CORP)}, ${entry}]` })).toEqual([expect.stringMatching(/^IDENTITY_PROVIDERS: provider #2: /)]);
  });

  it.each([
    ['not JSON', 'google'],
    ['a JSON object instead of an array', JSON.stringify(CORP)],
    ['truncated JSON', '[{"id": "corp"'],
  ])('refuses %s, saying what it takes', (_name, value) => {
    expect(problemsOf({ IDENTITY_PROVIDERS: value })).toEqual(['IDENTITY_PROVIDERS: must be a JSON array of providers, or @ followed by the path of a file holding one']);
  });

  it('reads @file', () => {
    const file = join(dir, 'providers.json');
    writeFileSync(file, JSON.stringify([CORP, { ...CORP, id: 'partner', name: 'Partner' }]));
    expect(loadConfig({ IDENTITY_PROVIDERS: `@${file}` }).identity.providers.map((p) => p.id)).toEqual(['corp', 'partner']);
  });

  it('refuses @file that does not exist, naming the file', () => {
    const file = join(dir, 'missing.json');
    expect(problemsOf({ IDENTITY_PROVIDERS: `@${file}` })).toEqual([`IDENTITY_PROVIDERS: ${file} cannot be read (ENOENT)`]);
  });

  it('refuses @file that is not a JSON array', () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, 'id: corp\n');
    expect(problemsOf({ IDENTITY_PROVIDERS: `@${file}` })).toEqual([expect.stringMatching(/^IDENTITY_PROVIDERS: must be a JSON array/)]);
  });

  it('lists every problem at once, with the other settings\', and never shows a client secret', () => {
    const problems = problemsOf({ ...providers({ ...CORP, clientSecret: 'do-not-print-me', colour: 'blue' }, { ...CORP, id: 'Bad_Id', issuer: 'http://idp.example.com' }), PORT: 'not-a-port' });
    expect(problems).toEqual(
      expect.arrayContaining([
        'IDENTITY_PROVIDERS: provider "corp": unknown field colour',
        expect.stringMatching(/^IDENTITY_PROVIDERS: provider "Bad_Id": id must be a lower-case slug/),
        expect.stringMatching(/^IDENTITY_PROVIDERS: provider "Bad_Id": issuer must be an https:\/\//),
        expect.stringMatching(/^PORT: /),
      ]),
    );
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).not.toContain('do-not-print-me');
  });
});

describe('PUBLIC_URL, OIDC_RETURN_URLS and OIDC_TIMEOUT_MS', () => {
  it('take the service on localhost at PORT, no return URL and 5 s by default', () => {
    expect(loadConfig({ PORT: '4100' }).identity).toEqual({ providers: [], publicUrl: 'http://localhost:4100', returnUrls: [], timeoutMs: 5000, requireBinding: true });
  });

  it('read PUBLIC_URL without its trailing slash, the return URLs as listed, and the timeout', () => {
    const identity = loadConfig({ PUBLIC_URL: 'https://accounts.meet.example.com/', OIDC_RETURN_URLS: 'https://meet.example.com/signed-in, http://localhost:5173/back?from=sso', OIDC_TIMEOUT_MS: '2500' }).identity;
    expect(identity).toMatchObject({ publicUrl: 'https://accounts.meet.example.com', returnUrls: ['https://meet.example.com/signed-in', 'http://localhost:5173/back?from=sso'], timeoutMs: 2500 });
  });

  it.each(['accounts.meet.example.com', 'ftp://accounts.meet.example.com', 'https://accounts.meet.example.com/?x=1', 'https://accounts.meet.example.com/#top'])('refuses PUBLIC_URL=%s', (value) => {
    expect(problemsOf({ PUBLIC_URL: value })).toEqual([expect.stringMatching(/^PUBLIC_URL: must be the http\(s\) URL the service is reached at/)]);
  });

  it.each(['/signed-in', 'javascript:alert(1)', 'https://meet.example.com/#done', 'https://user@meet.example.com/back'])('refuses %s among OIDC_RETURN_URLS, naming it', (value) => {
    expect(problemsOf({ OIDC_RETURN_URLS: `https://meet.example.com/ok,${value}` })).toEqual([`OIDC_RETURN_URLS: ${value} is not an http(s) URL without a fragment`]);
  });

  it.each(['99', '60001', 'soon'])('refuses OIDC_TIMEOUT_MS=%s', (value) => {
    expect(problemsOf({ OIDC_TIMEOUT_MS: value })).toEqual([expect.stringMatching(/^OIDC_TIMEOUT_MS: /)]);
  });
});

describe('OIDC_REQUIRE_BINDING', () => {
  it('is true by default, and read as the other switches are', () => {
    expect(loadConfig({}).identity.requireBinding).toBe(true);
    for (const value of ['false', '0', 'no']) expect(loadConfig({ OIDC_REQUIRE_BINDING: value }).identity.requireBinding).toBe(false);
    for (const value of ['true', '1', 'yes']) expect(loadConfig({ OIDC_REQUIRE_BINDING: value }).identity.requireBinding).toBe(true);
  });

  it.each(['off', 'TRUE', 'maybe'])('refuses OIDC_REQUIRE_BINDING=%j: the service does not start', (value) => {
    expect(problemsOf({ OIDC_REQUIRE_BINDING: value })).toEqual(['OIDC_REQUIRE_BINDING: must be true or false']);
  });
});
