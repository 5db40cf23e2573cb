// Who may not call the phone-change operations, every bad input of the contract, and the codes: a code
// works only for its change and its purpose, wrong ones burn it, expired ones fail; send-code does not
// send the phone-change purposes; the limit of changes per 30 days. Status and code on both transports.
import { describe, expect, it } from '@jest/globals';
import { SendCodeDocument } from '../generated/graphql.js';
import { requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import {
  accepted,
  cancel,
  current,
  type Outcome,
  provenNewPhone,
  refusal,
  sendCurrentCode,
  SERVER_ENV,
  start,
  TRANSPORTS,
  type Transport,
  verifyAccount,
  verifyNew,
  wait,
} from './support.js';

const t = useTestServer(SERVER_ENV);

/** A refusal with its HTTP status: the code's on REST, 200 on GraphQL. */
function expectRefused(result: Outcome, transport: Transport, code: string, status: number): void {
  expect({ code: refusal(result), status: result.status }).toEqual({ code, status: transport === 'REST' ? status : 200 });
}

const every = (token: string | undefined, transport: Transport): [string, () => Promise<Outcome>][] => [
  ['current', () => current(t, token, transport)],
  ['start', () => start(t, token, newPhone(), transport)],
  ['verify-new', () => verifyNew(t, token, '123456', transport)],
  ['send-current-code', () => sendCurrentCode(t, token, transport)],
  ['verify-account', () => verifyAccount(t, token, { code: '123456' }, transport)],
  ['wait', () => wait(t, token, transport)],
  ['cancel', () => cancel(t, token, transport)],
];

describe.each(TRANSPORTS)('phone-change inputs, over %s', (transport) => {
  it('refuses every operation without a token, and with a token of an ended session (UNAUTHENTICATED)', async () => {
    const user = await signInWithCode(t);
    await t.http.post('/api/v1/auth/logout', { refreshToken: user.refreshToken });
    for (const token of [undefined, user.accessToken]) {
      for (const [name, call] of every(token, transport)) {
        const result = await call();
        expect({ name, code: refusal(result), status: result.status }).toEqual({ name, code: 'UNAUTHENTICATED', status: transport === 'REST' ? 401 : 200 });
      }
    }
    expect(await t.sql('select id from phone_changes')).toEqual([]);
  });

  it('answers NOT_FOUND to every step without a pending change (myPhoneChange: null)', async () => {
    const user = await signInWithCode(t);
    for (const [name, call] of every(user.accessToken, transport).filter(([n]) => n !== 'start')) {
      const result = await call();
      if (name === 'current' && transport === 'GraphQL') expect(accepted(result)).toBeNull();
      else expect({ name, code: refusal(result), status: result.status }).toEqual({ name, code: 'NOT_FOUND', status: transport === 'REST' ? 404 : 200 });
    }
  });

  it('refuses a number that is no mobile number, a missing one, and the account\'s own; sends nothing', async () => {
    const user = await signInWithCode(t);
    expectRefused(await start(t, user.accessToken, '12345', transport), transport, 'INVALID_PHONE', 400);
    expectRefused(await start(t, user.accessToken, user.phone, transport), transport, 'VALIDATION_FAILED', 400);
    if (transport === 'REST') {
      for (const phone of [undefined, 13800138000, 'x'.repeat(33)]) expectRefused(await start(t, user.accessToken, phone, transport), transport, 'VALIDATION_FAILED', 400);
    }
    expect((await t.outbox()).filter((m) => m.purpose.startsWith('phone-change'))).toEqual([]);
    expect(await t.sql('select id from phone_changes')).toEqual([]);
  });

  it('refuses a wrong code, burns the code after five wrong ones, and refuses an expired one', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    accepted(await start(t, user.accessToken, target, transport));
    const code = await t.codeFor(target, 'phone-change');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expectRefused(await verifyNew(t, user.accessToken, wrong, transport), transport, 'INVALID_CODE', 400);
    expectRefused(await verifyNew(t, user.accessToken, code, transport), transport, 'INVALID_CODE', 400);

    accepted(await start(t, user.accessToken, target, transport));
    await t.sql(`update phone_changes set new_code_expires_at = now() - interval '1 second' where user_id = $1 and status = 'PENDING'`, [user.userId]);
    expectRefused(await verifyNew(t, user.accessToken, await t.codeFor(target, 'phone-change'), transport), transport, 'INVALID_CODE', 400);
    expect(accepted(await current(t, user.accessToken, transport))).toMatchObject({ newPhoneProven: false });
  });

  it('takes a code only for its purpose and its change: a login code, the other slot\'s code, a replaced change\'s code fail', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    accepted(await start(t, user.accessToken, target, transport));
    const replaced = await t.codeFor(target, 'phone-change');
    // A login code to the new number is no phone-change code.
    expectRefused(await verifyNew(t, user.accessToken, await requestCode(t, target, 'login'), transport), transport, 'INVALID_CODE', 400);
    // Starting again replaces the change: the first change's code no longer works.
    const second = accepted(await start(t, user.accessToken, target, transport));
    const fresh = await t.codeFor(target, 'phone-change');
    if (fresh !== replaced) expectRefused(await verifyNew(t, user.accessToken, replaced, transport), transport, 'INVALID_CODE', 400);
    expect(await t.sql('select status from phone_changes where user_id = $1 order by created_at', [user.userId])).toEqual([{ status: 'CANCELLED' }, { status: 'PENDING' }]);
    // The current phone's code does not prove the new phone, nor the new phone's code the account.
    accepted(await sendCurrentCode(t, user.accessToken, transport));
    const currentCode = await t.codeFor(user.phone, 'phone-change-current');
    if (currentCode !== fresh) {
      expectRefused(await verifyNew(t, user.accessToken, currentCode, transport), transport, 'INVALID_CODE', 400);
      expectRefused(await verifyAccount(t, user.accessToken, { code: fresh }, transport), transport, 'INVALID_CODE', 400);
    }
    // A login code to the current phone is no account proof either.
    expectRefused(await verifyAccount(t, user.accessToken, { code: await requestCode(t, user.phone, 'login') }, transport), transport, 'INVALID_CODE', 400);
    expect(accepted(await current(t, user.accessToken, transport))).toMatchObject({ id: second.id, newPhoneProven: false, accountProven: false });
  });

  it('takes exactly one of code, totp and recoveryCode, each of its form; totp or recoveryCode without TOTP on is NOT_FOUND', async () => {
    const user = await signInWithCode(t);
    await provenNewPhone(t, user.accessToken, newPhone(), transport);
    for (const proof of [{ code: '123456', totp: '123456' }, { totp: '123456', recoveryCode: 'abcde-fghij' }, { code: '1', totp: '123456', recoveryCode: 'abcde-fghij' }]) {
      const result = await verifyAccount(t, user.accessToken, proof, transport);
      expectRefused(result, transport, 'VALIDATION_FAILED', 400);
      expect(Object.keys(result.fields ?? {}).sort()).toEqual(Object.keys(proof).sort());
    }
    expectRefused(await verifyAccount(t, user.accessToken, { totp: '12ab56' }, transport), transport, 'VALIDATION_FAILED', 400);
    expectRefused(await verifyAccount(t, user.accessToken, { recoveryCode: '!' }, transport), transport, 'VALIDATION_FAILED', 400);
    expectRefused(await verifyAccount(t, user.accessToken, {}, transport), transport, 'VALIDATION_FAILED', 400);
    expectRefused(await verifyAccount(t, user.accessToken, { totp: '123456' }, transport), transport, 'NOT_FOUND', 404);
    expectRefused(await verifyAccount(t, user.accessToken, { recoveryCode: 'abcde-fghij' }, transport), transport, 'NOT_FOUND', 404);
    if (transport === 'REST') expectRefused(await verifyAccount(t, user.accessToken, { code: 123456 }, transport), transport, 'VALIDATION_FAILED', 400);
    expect(accepted(await current(t, user.accessToken, transport))).toMatchObject({ status: 'PENDING', accountProven: false });
  });

  it('allows PHONE_CHANGES_PER_30_DAYS (3) applied changes in 30 days, then RATE_LIMITED with retryAfter', async () => {
    const user = await signInWithCode(t);
    for (const days of [1, 2, 29]) {
      await t.sql(`insert into phone_changes (id, user_id, phone, status, created_at, ended_at) values (gen_random_uuid(), $1, $2, 'APPLIED', now() - make_interval(days => $3), now() - make_interval(days => $3))`, [user.userId, newPhone(), days]);
    }
    const refused = await start(t, user.accessToken, newPhone(), transport);
    expectRefused(refused, transport, 'RATE_LIMITED', 429);
    await t.sql(`update phone_changes set ended_at = now() - interval '31 days' where user_id = $1 and ended_at < now() - interval '28 days'`, [user.userId]);
    accepted(await start(t, user.accessToken, newPhone(), transport));
  });

  it('counts the change\'s codes against the phone\'s send-code limits', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    accepted(await start(t, user.accessToken, target, transport));
    accepted(await sendCurrentCode(t, user.accessToken, transport));
    const count = async (phone: string) => (await t.sql<{ count: number }>('select count from rate_limits where key = $1', [`send-code:phone:${phone}:hour`]))[0]?.count;
    // The new phone: its change's code; the current one: the sign-in's code and the change's.
    expect({ target: await count(target), current: await count(user.phone) }).toEqual({ target: 1, current: 2 });
  });
});

describe('send-code', () => {
  it('does not send the phone-change purposes (REST 400, GraphQL has no such CodePurpose value)', async () => {
    for (const purpose of ['phone-change', 'phone-change-current', 'phone-change-notice']) {
      const res = await t.http.post('/api/v1/auth/send-code', { phone: newPhone(), purpose });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    }
    const res = await t.http.gql(SendCodeDocument, { input: { phone: newPhone(), purpose: 'PHONE_CHANGE' as never } });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(await t.outbox()).toEqual([]);
  });
});
