// PHONE_TAKEN (API.md 10.1): a number of another account is told only once the new phone is proven
// (before that it gets its code like any number, so starting a change enumerates nothing), and again
// when the change applies, since a pending change reserves nothing. Races for one number have exactly
// one winner: two accounts changing to it at once, and a change against a registration of it.
import { describe, expect, it } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode, type Session } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import {
  accepted,
  current,
  eventTypes,
  phoneOf,
  provenNewPhone,
  refusal,
  sendCurrentCode,
  SERVER_ENV,
  start,
  TRANSPORTS,
  verifyAccount,
  verifyNew,
  wait,
} from './support.js';

const t = useTestServer(SERVER_ENV);

/** The current phone's code of `user`'s pending change, asked for and read from the outbox. */
async function currentCode(user: Session, transport: 'REST' | 'GraphQL'): Promise<string> {
  accepted(await sendCurrentCode(t, user.accessToken, transport));
  return t.codeFor(user.phone, 'phone-change-current');
}

describe.each(TRANSPORTS)('a number that belongs to another account, over %s', (transport) => {
  it('gets its code when the change starts, and is PHONE_TAKEN (409) only once proven; nothing changes', async () => {
    const holder = await signInWithCode(t);
    const user = await signInWithCode(t);
    const started = accepted(await start(t, user.accessToken, holder.phone, transport));
    expect(started).toMatchObject({ phone: holder.phone, status: 'PENDING' });
    const code = await t.codeFor(holder.phone, 'phone-change');
    expect(refusal(await verifyNew(t, user.accessToken, '000000' === code ? '111111' : '000000', transport))).toBe('INVALID_CODE');
    const taken = await verifyNew(t, user.accessToken, code, transport);
    expect({ code: refusal(taken), status: taken.status }).toEqual({ code: 'PHONE_TAKEN', status: transport === 'REST' ? 409 : 200 });
    expect(accepted(await current(t, user.accessToken, transport))).toMatchObject({ status: 'PENDING', newPhoneProven: true });
    expect(refusal(await wait(t, user.accessToken, transport))).toBe('PHONE_TAKEN');
    expect(refusal(await verifyAccount(t, user.accessToken, { code: await currentCode(user, transport) }, transport))).toBe('PHONE_TAKEN');
    expect([await phoneOf(t, user.userId), await phoneOf(t, holder.userId)]).toEqual([user.phone, holder.phone]);
    expect((await eventTypes(t, user.userId)).filter((type) => type.startsWith('PHONE_'))).toEqual([]);
  });

  it('is checked again when the change applies: a number registered after the new phone was proven is PHONE_TAKEN', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    await provenNewPhone(t, user.accessToken, target, transport);
    await registerUser(t, target);
    expect(refusal(await verifyAccount(t, user.accessToken, { code: await currentCode(user, transport) }, transport))).toBe('PHONE_TAKEN');
    expect(await phoneOf(t, user.userId)).toBe(user.phone);
  });

  it('a waiting change whose number was taken meanwhile ends CANCELLED when its time comes', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    await provenNewPhone(t, user.accessToken, target, transport);
    accepted(await wait(t, user.accessToken, transport));
    await registerUser(t, target);
    await t.sql(`update phone_changes set applies_at = now() - interval '1 minute' where user_id = $1`, [user.userId]);
    expect(await t.server.services.phoneChanges.applyDue()).toBe(0);
    expect(await t.sql('select status from phone_changes where user_id = $1', [user.userId])).toEqual([{ status: 'CANCELLED' }]);
    expect((await eventTypes(t, user.userId)).filter((type) => type.startsWith('PHONE_'))).toEqual(['PHONE_CHANGE_REQUESTED', 'PHONE_CHANGE_CANCELLED']);
    expect(await phoneOf(t, user.userId)).toBe(user.phone);
  });
});

describe('races for one number', () => {
  it('of six accounts changing to it at once: exactly one gets it, the others PHONE_TAKEN', async () => {
    const target = newPhone();
    const users = await Promise.all(Array.from({ length: 6 }, () => signInWithCode(t)));
    const ready: { user: Session; code: string }[] = [];
    for (const [i, user] of users.entries()) {
      const transport = i % 2 ? 'GraphQL' : 'REST';
      await provenNewPhone(t, user.accessToken, target, transport);
      ready.push({ user, code: await currentCode(user, transport) });
    }
    const results = await Promise.all(ready.map(({ user, code }, i) => verifyAccount(t, user.accessToken, { code }, i % 2 ? 'GraphQL' : 'REST')));
    const outcomes = results.map((r) => r.data?.status ?? r.code).sort();
    expect(outcomes).toEqual(['APPLIED', 'PHONE_TAKEN', 'PHONE_TAKEN', 'PHONE_TAKEN', 'PHONE_TAKEN', 'PHONE_TAKEN']);
    const holders = await t.sql<{ id: string }>('select id from users where phone = $1', [target]);
    expect(holders).toHaveLength(1);
    expect(holders[0]!.id).toBe(ready[results.findIndex((r) => r.data?.status === 'APPLIED')]!.user.userId);
  });

  it('of a change against a registration of it, five times: exactly one wins each time', async () => {
    for (let round = 0; round < 5; round++) {
      const user = await signInWithCode(t);
      const target = newPhone();
      await provenNewPhone(t, user.accessToken, target, 'REST');
      const code = await currentCode(user, 'REST');
      const registerCode = await requestCode(t, target, 'register');
      const [change, registration] = await Promise.all([
        verifyAccount(t, user.accessToken, { code }, 'REST'),
        t.http.post('/api/v1/auth/register', { phone: target, code: registerCode, password: GOOD_PASSWORD }),
      ]);
      const changed = change.data?.status === 'APPLIED';
      expect({ round, change: change.data?.status ?? change.code, registration: registration.status }).toEqual(
        changed ? { round, change: 'APPLIED', registration: 409 } : { round, change: 'PHONE_TAKEN', registration: 201 },
      );
      if (changed) expect(registration.body.code).toBe('PHONE_ALREADY_REGISTERED');
      expect(await t.sql('select id from users where phone = $1', [target])).toHaveLength(1);
    }
  });
});
