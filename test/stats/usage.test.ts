import { beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import {
  DAY,
  HOUR,
  INTERNAL_KEY,
  MINUTE,
  SECOND,
  USAGE,
  ago,
  expectAccepted,
  expectNothingCounted,
  report,
  restStats,
  sendUsage,
  type UsageReport,
} from './support.js';

const t = useTestServer({ INTERNAL_API_KEY: INTERNAL_KEY });
const keyless = useTestServer(); // an instance without INTERNAL_API_KEY, on the same database

let user: Session;
beforeEach(async () => {
  user = await signInWithCode(t);
});

/** One valid report of `user`: 30 minutes and 30 seconds, begun an hour ago. */
const valid = (overrides: Partial<UsageReport> = {}): UsageReport => ({ ...report(user.userId, 'meeting-1', 'host', HOUR, 30 * MINUTE + 30 * SECOND), ...overrides });

describe('POST /api/v1/internal/meeting-usage: acceptance', () => {
  it('accepts a valid report with 204 and no body, and counts it', async () => {
    expectAccepted(await sendUsage(t, valid()));
    expect(await restStats(t, user.accessToken)).toMatchObject({ meetingsHosted: 1, totalMeetingMinutes: 30, hostedMeetingMinutes: 30 });
  });

  it('accepts timestamps with a UTC offset and stores the same instant', async () => {
    const joined = new Date(Date.now() - 2 * HOUR);
    joined.setUTCMilliseconds(0);
    const local = new Date(joined.getTime() + 8 * HOUR).toISOString().replace(/\.000Z$/, '+08:00');
    expectAccepted(await sendUsage(t, valid({ joinedAt: local, leftAt: ago(HOUR) })));
    const stats = await restStats(t, user.accessToken);
    expect(stats).toMatchObject({ lastMeetingAt: joined.toISOString(), totalMeetingMinutes: 60 });
  });

  it('accepts a leftAt less than a minute ahead of the server clock (clock skew)', async () => {
    expectAccepted(await sendUsage(t, valid({ joinedAt: ago(10 * MINUTE), leftAt: ago(-20 * SECOND) })));
    expect(await restStats(t, user.accessToken)).toMatchObject({ meetingsHosted: 1, totalMeetingMinutes: 10 });
  });

  it('accepts a span of exactly 24 hours, and a report that ends as it begins (0 minutes)', async () => {
    const now = Date.now();
    expectAccepted(await sendUsage(t, valid({ meetingId: 'long', joinedAt: ago(2 * DAY, now), leftAt: ago(DAY, now) })));
    expectAccepted(await sendUsage(t, valid({ meetingId: 'empty', joinedAt: ago(HOUR, now), leftAt: ago(HOUR, now) })));
    expect(await restStats(t, user.accessToken)).toMatchObject({ meetingsHosted: 2, totalMeetingMinutes: 24 * 60 });
  });
});

describe('POST /api/v1/internal/meeting-usage: idempotency', () => {
  const usageRows = async () => (await t.sql<{ n: number }>('select count(*)::int as n from meeting_usage'))[0]!.n;

  it('counts a report sent twice once; both answers are 204', async () => {
    const r = valid();
    expectAccepted(await sendUsage(t, r));
    expectAccepted(await sendUsage(t, r));
    expect(await usageRows()).toBe(1);
    expect(await restStats(t, user.accessToken)).toMatchObject({ meetingsHosted: 1, totalMeetingMinutes: 30, hostedMeetingMinutes: 30 });
  });

  it('treats the same (userId, meetingId, joinedAt) as a retry even when the rest differs: the first report stands', async () => {
    const r = valid();
    expectAccepted(await sendUsage(t, r));
    expectAccepted(await sendUsage(t, { ...r, role: 'participant', leftAt: ago(0) }));
    expect(await usageRows()).toBe(1);
    expect(await restStats(t, user.accessToken)).toMatchObject({ meetingsHosted: 1, meetingsJoined: 0, totalMeetingMinutes: 30, hostedMeetingMinutes: 30 });
  });

  it('recognises a retry whose joinedAt names the same instant in another offset', async () => {
    const r = valid({ joinedAt: new Date(Math.floor((Date.now() - HOUR) / SECOND) * SECOND).toISOString() });
    expectAccepted(await sendUsage(t, r));
    const shifted = new Date(Date.parse(r.joinedAt) - 5 * HOUR).toISOString().replace('Z', '-05:00');
    expectAccepted(await sendUsage(t, { ...r, joinedAt: shifted }));
    expect(await usageRows()).toBe(1);
    expect(await restStats(t, user.accessToken)).toMatchObject({ totalMeetingMinutes: 30 });
  });

  it('counts a report once when its retries arrive in parallel', async () => {
    const r = valid();
    const answers = await Promise.all(Array.from({ length: 8 }, () => sendUsage(t, r)));
    for (const res of answers) expectAccepted(res);
    expect(await usageRows()).toBe(1);
    expect(await restStats(t, user.accessToken)).toMatchObject({ meetingsHosted: 1, totalMeetingMinutes: 30, last30Days: { meetings: 1, minutes: 30 } });
  });

  it('counts every distinct report sent in parallel, rejoins of one meeting included', async () => {
    const now = Date.now();
    const reports = Array.from({ length: 10 }, (_, i) => report(user.userId, `m-${i % 4}`, i % 2 ? 'participant' : 'host', (i + 2) * HOUR, (i + 1) * MINUTE, now));
    for (const res of await Promise.all(reports.map((r) => sendUsage(t, r)))) expectAccepted(res);
    // m-0 and m-2 only ever host (i = 0, 2, 4, 6, 8), m-1 and m-3 only participant.
    expect(await restStats(t, user.accessToken)).toMatchObject({
      meetingsHosted: 2,
      meetingsJoined: 2,
      totalMeetingMinutes: 55,
      hostedMeetingMinutes: 1 + 3 + 5 + 7 + 9,
      averageMeetingMinutes: 13.75,
      lastMeetingAt: reports[0]!.joinedAt,
    });
  });
});

describe('POST /api/v1/internal/meeting-usage: authentication', () => {
  it.each([
    ['no X-Internal-Key header', {}, 'missing'],
    ['an empty X-Internal-Key', { 'x-internal-key': '' }, 'missing'],
    ['a wrong key of the same length', { 'x-internal-key': INTERNAL_KEY.slice(0, -1) + (INTERNAL_KEY.endsWith('x') ? 'y' : 'x') }, 'invalid'],
    ['a prefix of the key', { 'x-internal-key': INTERNAL_KEY.slice(0, 32) }, 'invalid'],
    ['the key with a suffix', { 'x-internal-key': `${INTERNAL_KEY}0` }, 'invalid'],
    ['the key as a bearer token', { authorization: `Bearer ${INTERNAL_KEY}` }, 'missing'],
  ])('answers 401 UNAUTHENTICATED to %s, with its reason, and counts nothing', async (_name, headers, reason) => {
    const res = await sendUsage(t, valid(), headers as Record<string, string>);
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.body.reason).toBe(reason);
    await expectNothingCounted(t, user.userId, user.accessToken);
  });

  it("refuses a user's access token in place of the key", async () => {
    expectProblem(await sendUsage(t, valid(), { authorization: `Bearer ${user.accessToken}` }), 401, 'UNAUTHENTICATED');
    await expectNothingCounted(t, user.userId, user.accessToken);
  });

  it('checks the key before the body: a malformed body without a key is 401', async () => {
    expectProblem(await sendUsage(t, { role: 'guest' }, {}), 401, 'UNAUTHENTICATED');
  });

  it('is absent (404 NOT_FOUND) when INTERNAL_API_KEY is not configured, whatever key is presented', async () => {
    for (const headers of [{}, { 'x-internal-key': INTERNAL_KEY }] as Record<string, string>[]) {
      expectProblem(await keyless.http.post(USAGE, valid(), { headers }), 404, 'NOT_FOUND');
    }
    await expectNothingCounted(t, user.userId, user.accessToken);
  });
});

describe('POST /api/v1/internal/meeting-usage: validation', () => {
  const postRaw = (rawBody: string) => t.http.request('POST', USAGE, { rawBody, headers: { 'x-internal-key': INTERNAL_KEY, 'content-type': 'application/json' } });

  /** 400 VALIDATION_FAILED naming exactly `fields`, and nothing recorded. */
  async function expectRejected(res: Awaited<ReturnType<typeof sendUsage>>, fields: string[]): Promise<void> {
    const body = expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(Object.keys(body.fields ?? {}).sort()).toEqual([...fields].sort());
    for (const message of Object.values(body.fields)) expect(typeof message).toBe('string');
    await expectNothingCounted(t, user.userId, user.accessToken);
  }

  it('rejects a body that is not JSON', async () => {
    await expectRejected(await postRaw('{"userId": "'), ['(body)']);
  });

  it('rejects a JSON body that is not an object', async () => {
    await expectRejected(await postRaw('[]'), ['(body)']);
  });

  it('rejects an empty body, naming every required field', async () => {
    await expectRejected(await sendUsage(t, {}), ['userId', 'meetingId', 'role', 'joinedAt', 'leftAt']);
  });

  const cases: [string, () => object, string][] = [
    ['a missing leftAt', () => ({ ...valid(), leftAt: undefined }), 'leftAt'],
    ['a missing meetingId', () => ({ ...valid(), meetingId: undefined }), 'meetingId'],
    ['a numeric meetingId', () => valid({ meetingId: 42 as never }), 'meetingId'],
    ['an empty meetingId', () => valid({ meetingId: '' }), 'meetingId'],
    ['a meetingId over 128 characters', () => valid({ meetingId: 'm'.repeat(129) }), 'meetingId'],
    ['a meetingId with a NUL character', () => valid({ meetingId: 'meeting\u00001' }), 'meetingId'],
    ["role 'guest'", () => valid({ role: 'guest' as never }), 'role'],
    ['a role of the wrong type', () => valid({ role: true as never }), 'role'],
    ['a userId that is not a UUID', () => valid({ userId: 'user-1' }), 'userId'],
    ['a numeric userId', () => valid({ userId: 7 as never }), 'userId'],
    ['a joinedAt in epoch milliseconds', () => valid({ joinedAt: (Date.now() - HOUR) as never }), 'joinedAt'],
    ['a joinedAt without a time zone', () => valid({ joinedAt: ago(HOUR).replace('Z', '') }), 'joinedAt'],
    ['a leftAt that is not a timestamp', () => valid({ leftAt: 'yesterday' }), 'leftAt'],
    ['a leftAt of null', () => valid({ leftAt: null as never }), 'leftAt'],
    ['an impossible date', () => valid({ joinedAt: '2025-02-30T10:00:00Z' }), 'joinedAt'],
  ];
  it.each(cases)('rejects %s (400, fields names it)', async (_name, body, field) => {
    await expectRejected(await sendUsage(t, body()), [field]);
  });

  it('rejects a report of an unknown user (a random UUID) with fields.userId', async () => {
    await expectRejected(await sendUsage(t, valid({ userId: randomUUID() })), ['userId']);
    expect((await t.sql('select 1 from meeting_usage')).length).toBe(0);
  });

  it('rejects leftAt before joinedAt with fields.leftAt', async () => {
    await expectRejected(await sendUsage(t, valid({ joinedAt: ago(HOUR), leftAt: ago(HOUR + SECOND) })), ['leftAt']);
  });

  it('rejects a span of more than 24 hours with fields.leftAt', async () => {
    const now = Date.now();
    await expectRejected(await sendUsage(t, valid({ joinedAt: ago(2 * DAY + MINUTE, now), leftAt: ago(DAY, now) })), ['leftAt']);
  });

  it('rejects a joinedAt more than a minute in the future with fields.joinedAt', async () => {
    await expectRejected(await sendUsage(t, valid({ joinedAt: ago(-2 * MINUTE), leftAt: ago(-3 * MINUTE) })), ['joinedAt']);
  });

  it('rejects a leftAt more than a minute in the future with fields.leftAt', async () => {
    await expectRejected(await sendUsage(t, valid({ joinedAt: ago(HOUR), leftAt: ago(-2 * MINUTE) })), ['leftAt']);
  });

  it('keeps earlier figures unchanged by rejected reports', async () => {
    expectAccepted(await sendUsage(t, valid()));
    const before = await restStats(t, user.accessToken);
    for (const bad of [valid({ role: 'guest' as never }), valid({ meetingId: 'other', leftAt: ago(-HOUR) }), valid({ userId: randomUUID() })]) {
      expect((await sendUsage(t, bad)).status).toBe(400);
    }
    expect((await sendUsage(t, valid({ meetingId: 'other' }), {})).status).toBe(401);
    expect(await restStats(t, user.accessToken)).toEqual(before);
  });
});
