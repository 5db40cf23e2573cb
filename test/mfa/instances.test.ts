// Two instances of one deployment on one database: a TOTP code accepted by one is refused by the
// other, even when both judge it at the same moment.
import { describe, expect, it } from '@jest/globals';
import { instancePair } from '../helpers/instances.js';
import { expectProblem } from '../rest/support.js';
import { codeAt, enrolledUser, mfaTokenByPassword, SERVER_ENV, steadyStep, VERIFY } from './support.js';

const { a, b } = instancePair(() => SERVER_ENV);

describe('a TOTP code on two instances', () => {
  it('is accepted by one and refused by the other', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(a, step);
    const code = codeAt(user.secret, step);
    expect((await a.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(a, user.phone), code })).status).toBe(200);
    expectProblem(await b.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(b, user.phone), code }), 400, 'INVALID_CODE');
  });

  it('sent to both at once signs in exactly once', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(a, step);
    const code = codeAt(user.secret, step);
    const tokens = await Promise.all([a, b, a, b].map((s) => mfaTokenByPassword(s, user.phone)));
    const answers = await Promise.all(tokens.map((mfaToken, i) => [a, b][i % 2]!.http.post(VERIFY, { mfaToken, code })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
  });

  it('spends one mfaToken once when the same token and code reach both at once', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(a, step);
    const mfaToken = await mfaTokenByPassword(a, user.phone);
    const [onA, onB] = await Promise.all([a, b].map((s, i) => s.http.post(VERIFY, { mfaToken, code: i === 0 ? codeAt(user.secret, step) : user.recoveryCodes[0] })));
    expect([onA!.status, onB!.status].sort()).toEqual([200, 400]);
    expect(await a.sql('select count(*)::int as n from sessions where user_id = $1', [user.userId])).toEqual([{ n: 2 }]);
  });
});
