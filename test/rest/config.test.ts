import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestServer } from '../helpers/server.js';
import { expectNoLeaks } from './support.js';

const t = useTestServer();

describe('GET /api/v1/auth/config', () => {
  it('answers the PublicConfig shape with the default limits, without authentication', async () => {
    const res = await t.http.get('/api/v1/auth/config');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = res.body;
    expect(Object.keys(body).sort()).toEqual(['about', 'auth', 'avatar', 'helpCenter', 'identityProviders', 'registrationEnabled']);
    expect(body.registrationEnabled).toBe(true);
    // No OIDC_PROVIDERS here: no sign-in button to show.
    expect(body.identityProviders).toEqual([]);
    expect(Object.keys(body.about).sort()).toEqual(
      ['appName', 'contactEmail', 'description', 'privacyUrl', 'termsUrl', 'version', 'website'].sort(),
    );
    for (const value of Object.values(body.about)) expect(typeof value).toBe('string');
    expect(body.about.version).toBe('1.0.0');
    expect(Object.keys(body.helpCenter).sort()).toEqual(['faqs', 'supportEmail', 'supportPhone', 'url']);
    expect(Array.isArray(body.helpCenter.faqs)).toBe(true);
    expect(body.helpCenter.faqs.length).toBeGreaterThan(0);
    for (const faq of body.helpCenter.faqs) {
      expect(Object.keys(faq).sort()).toEqual(['answer', 'question']);
    }
    expect(body.auth).toEqual({
      codeLength: 6,
      codeTtlSeconds: 300,
      resendIntervalSeconds: 60,
      passwordMinLength: 8,
      passwordMaxBytes: 72,
      loginMethods: ['sms_code', 'password'],
    });
    expect(body.avatar).toEqual({
      maxBytes: 5242880,
      acceptedTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'],
    });
    expectNoLeaks(res);
  });

  it('ignores an Authorization header, even an invalid one', async () => {
    const res = await t.http.get('/api/v1/auth/config', { token: 'not-a-token' });
    expect(res.status).toBe(200);
    expect(res.body.registrationEnabled).toBe(true);
  });

});

describe('GET /api/v1/auth/config with the switch and limits configured', () => {
  const custom = useTestServer({
    REGISTRATION_ENABLED: 'false',
    CODE_TTL_SECONDS: '120',
    SEND_CODE_INTERVAL_SECONDS: '30',
    AVATAR_MAX_BYTES: '1048576',
  });

  it('reflects the configured switch and limits', async () => {
    const res = await custom.http.get('/api/v1/auth/config');
    expect(res.status).toBe(200);
    expect(res.body.registrationEnabled).toBe(false);
    expect(res.body.auth).toMatchObject({ codeTtlSeconds: 120, resendIntervalSeconds: 30 });
    expect(res.body.avatar.maxBytes).toBe(1048576);
  });
});

describe('GET /api/v1/auth/config with PUBLIC_CONFIG_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-public-config-'));
  const file = join(dir, 'public.json');
  writeFileSync(
    file,
    JSON.stringify({
      about: { appName: 'Acme Meet' },
      helpCenter: { supportEmail: 'help@acme.test', faqs: [{ question: 'Q?', answer: 'A.' }] },
    }),
  );
  const custom = useTestServer({ PUBLIC_CONFIG_FILE: file });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes about and help-center content from the file, keeping defaults for the rest', async () => {
    const defaults = (await t.http.get('/api/v1/auth/config')).body;
    const res = await custom.http.get('/api/v1/auth/config');
    expect(res.status).toBe(200);
    expect(res.body.about).toEqual({ ...defaults.about, appName: 'Acme Meet' });
    expect(res.body.helpCenter).toEqual({
      ...defaults.helpCenter,
      supportEmail: 'help@acme.test',
      faqs: [{ question: 'Q?', answer: 'A.' }],
    });
  });
});
