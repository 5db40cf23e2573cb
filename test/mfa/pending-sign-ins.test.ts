// Half-finished sign-ins end with the credentials they were started under: blocking the account,
// changing or resetting its password and switching its TOTP off end, in the change's transaction,
// its mfaTokens (of sign-ins and of step-ups) and its passkey registration challenges. Both transports.
import { describe, expect, it } from '@jest/globals';
import { withRole } from '../admin/support.js';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { accepted, addPasskey, refusal, registrationOptions, TRANSPORTS, type Transport, verifyMfa } from '../passkeys/support.js';
import { codeAt, enrolledUser, mfaTokenByPassword, SERVER_ENV, steadyStep } from './support.js';

const ORIGIN = 'https://meet.example.com:8443';
const t = useTestServer({ ...SERVER_ENV, WEBAUTHN_ORIGINS: ORIGIN });
const NEW_PASSWORD = 'copper-lantern-77';

/** Asserts that a change succeeded, whatever the transport. */
function succeeded(res: HttpResult, transport: Transport): void {
  if (transport === 'REST') expect(res.status).toBeLessThan(300);
  else expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
}

/** The changes that end pending sign-ins, as a client of each transport makes them. */
function changes(transport: Transport) {
  const gql = (query: string, variables: Record<string, unknown>, token?: string) => t.http.post('/graphql', { query, variables }, { token });
  const rest = transport === 'REST';
  return {
    async blockAndUnblock(userId: string): Promise<void> {
      const admin = await withRole(t, 'ADMIN');
      const token = admin.accessToken;
      succeeded(
        rest
          ? await t.http.post(`/api/v1/admin/users/${userId}/block`, { reason: 'fraud' }, { token })
          : await gql('mutation($id: ID!) { adminBlockUser(id: $id, reason: "fraud") { id } }', { id: userId }, token),
        transport,
      );
      succeeded(
        rest ? await t.http.post(`/api/v1/admin/users/${userId}/unblock`, undefined, { token }) : await gql('mutation($id: ID!) { adminUnblockUser(id: $id) { id } }', { id: userId }, token),
        transport,
      );
    },
    async changePassword(user: Session): Promise<void> {
      const input = { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD };
      succeeded(
        rest
          ? await t.http.request('PUT', '/api/v1/users/me/password', { token: user.accessToken, body: input })
          : await gql('mutation($i: ChangePasswordInput!) { changePassword(input: $i) }', { i: input }, user.accessToken),
        transport,
      );
    },
    async resetPassword(phone: string): Promise<void> {
      const input = { phone, code: await requestCode(t, phone, 'reset-password'), newPassword: NEW_PASSWORD };
      succeeded(
        rest ? await t.http.post('/api/v1/auth/reset-password', input) : await gql('mutation($i: ResetPasswordInput!) { resetPassword(input: $i) }', { i: input }),
        transport,
      );
    },
    async disableTotp(token: string, code: string): Promise<void> {
      succeeded(
        rest ? await t.http.request('DELETE', '/api/v1/users/me/mfa/totp', { token, body: { code } }) : await gql('mutation($c: String!) { disableTotp(code: $c) }', { c: code }, token),
        transport,
      );
    },
  };
}

const pendingTokens = async (userId: string) => (await t.sql<{ n: number }>('select count(*)::int as n from mfa_challenges where user_id = $1', [userId]))[0]!.n;

describe.each(TRANSPORTS)('pending sign-ins over %s', (transport) => {
  const change = changes(transport);

  it('end with a block: after the unblock, an mfaToken minted before it answers INVALID_CODE, a step-up token too', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const signInToken = await mfaTokenByPassword(t, user.phone);
    const asked = await registrationOptions(t, user.accessToken, transport);
    await change.blockAndUnblock(user.userId);
    expect(refusal(await verifyMfa(t, signInToken, codeAt(user.secret, step), transport))).toEqual({ code: 'INVALID_CODE' });
    expect(await pendingTokens(user.userId)).toBe(0);
    expect(refusal(asked)).toEqual({ code: 'MFA_REQUIRED' });
    expect(refusal(await verifyMfa(t, asked.mfa!.mfaToken as string, codeAt(user.secret, step), transport))).toEqual({ code: 'INVALID_CODE' });
    // A sign-in started after the unblock finishes, with the very code the old token was refused.
    accepted(await verifyMfa(t, await mfaTokenByPassword(t, user.phone), codeAt(user.secret, step), transport));
  });

  it('end with a password change: an mfaToken minted before it answers INVALID_CODE', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const token = await mfaTokenByPassword(t, user.phone);
    await change.changePassword(user);
    expect(refusal(await verifyMfa(t, token, codeAt(user.secret, step), transport))).toEqual({ code: 'INVALID_CODE' });
    expect(await pendingTokens(user.userId)).toBe(0);
    accepted(await verifyMfa(t, await mfaTokenByPassword(t, user.phone, NEW_PASSWORD), codeAt(user.secret, step), transport));
  });

  it('end with a reset: an mfaToken minted before it answers INVALID_CODE', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const token = await mfaTokenByPassword(t, user.phone);
    await change.resetPassword(user.phone);
    expect(refusal(await verifyMfa(t, token, codeAt(user.secret, step), transport))).toEqual({ code: 'INVALID_CODE' });
    accepted(await verifyMfa(t, await mfaTokenByPassword(t, user.phone, NEW_PASSWORD), codeAt(user.secret, step), transport));
  });

  it('end with TOTP switched off: on again with a new secret, an mfaToken minted before answers INVALID_CODE to its codes', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const token = await mfaTokenByPassword(t, user.phone);
    await change.disableTotp(user.accessToken, codeAt(user.secret, step));
    const again = await enrolledUser(t, step + 1, user);
    expect(refusal(await verifyMfa(t, token, codeAt(again.secret, step + 1), transport))).toEqual({ code: 'INVALID_CODE' });
    accepted(await verifyMfa(t, await mfaTokenByPassword(t, user.phone), codeAt(again.secret, step + 1), transport));
  });

  it('end with a block: a registration challenge asked before it adds no passkey after the unblock', async () => {
    const user = await signInWithCode(t);
    const options = accepted(await registrationOptions(t, user.accessToken, transport));
    await change.blockAndUnblock(user.userId);
    const again = await signInWithCode(t, user.phone);
    const refused = refusal(await addPasskey(t, again.accessToken, new SoftAuthenticator(ORIGIN).register(options), transport));
    expect(refused).toEqual({ code: 'VALIDATION_FAILED', fields: { response: expect.stringContaining('challenge') } });
    expect(await t.sql('select id from passkeys where user_id = $1', [user.userId])).toEqual([]);
  });

  it('end with a password change, a reset and TOTP switched off: a registration challenge asked before adds no passkey', async () => {
    const step = await steadyStep();
    const user = await registerUser(t);
    const options = [accepted(await registrationOptions(t, user.accessToken, transport))];
    await change.changePassword(user);
    options.push(accepted(await registrationOptions(t, user.accessToken, transport)));
    await change.resetPassword(user.phone);
    // A new session with TOTP on, stepped up to ask for options, then TOTP goes off.
    const signedIn = (await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: NEW_PASSWORD })).body;
    const enrolled = await enrolledUser(t, step, { ...user, accessToken: signedIn.accessToken, refreshToken: signedIn.refreshToken });
    const stepped = accepted(await verifyMfa(t, await mfaTokenByPassword(t, user.phone, NEW_PASSWORD), codeAt(enrolled.secret, step), transport));
    options.push(accepted(await registrationOptions(t, stepped.accessToken, transport)));
    await change.disableTotp(stepped.accessToken, codeAt(enrolled.secret, step + 1));
    for (const [i, asked] of options.entries()) {
      const refused = refusal(await addPasskey(t, stepped.accessToken, new SoftAuthenticator(ORIGIN).register(asked), transport));
      expect({ i, ...refused }).toEqual({ i, code: 'VALIDATION_FAILED', fields: { response: expect.stringContaining('challenge') } });
    }
    expect(await t.sql('select id from passkeys where user_id = $1', [user.userId])).toEqual([]);
  });
});
