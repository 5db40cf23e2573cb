// Shared helpers of the statistics suite (not a test file).
import { expect } from '@jest/globals';
import { MyStatsDocument, type MyStatsQuery } from '../generated/graphql.js';
import type { HttpResult } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

/** The key the meeting service presents; INTERNAL_API_KEY needs at least 32 characters. */
export const INTERNAL_KEY = 'meeting-service-key-for-tests-0123456789';
export const USAGE = '/api/v1/internal/meeting-usage';
export const STATS = '/api/v1/users/me/stats';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export type Role = 'host' | 'participant';
export interface UsageReport {
  userId: string;
  meetingId: string;
  role: Role;
  joinedAt: string;
  leftAt: string;
}

/** An ISO-8601 UTC timestamp `ms` before now (negative: after now). */
export function ago(ms: number, now = Date.now()): string {
  return new Date(now - ms).toISOString();
}

/** A report of a participation that began `startedAgo` ms ago and lasted `durationMs`. */
export function report(userId: string, meetingId: string, role: Role, startedAgo: number, durationMs: number, now = Date.now()): UsageReport {
  return { userId, meetingId, role, joinedAt: ago(startedAgo, now), leftAt: ago(startedAgo - durationMs, now) };
}

/** Posts a usage report as the meeting service does (with the key unless told otherwise). */
export function sendUsage(t: TestServer, body: unknown, headers: Record<string, string> = { 'x-internal-key': INTERNAL_KEY }): Promise<HttpResult> {
  return t.http.post(USAGE, body, { headers });
}

/** Asserts 204 with an empty body. */
export function expectAccepted(res: HttpResult): void {
  expect({ status: res.status, body: res.body }).toEqual({ status: 204, body: '' });
}

/** Sends reports one after the other; each must be accepted. */
export async function sendAll(t: TestServer, reports: UsageReport[]): Promise<void> {
  for (const r of reports) expectAccepted(await sendUsage(t, r));
}

/** GET /users/me/stats, asserting 200. */
export async function restStats(t: TestServer, token: string): Promise<any> {
  const res = await t.http.get(STATS, { token });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.body;
}

/** The myStats query, asserting a success. */
export async function gqlStats(t: TestServer, token: string): Promise<MyStatsQuery['myStats']> {
  const res = await t.http.gql(MyStatsDocument, {}, { token });
  expect(res.body.errors).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data!.myStats;
}

export const STATS_FIELDS = [
  'activeSessions',
  'averageMeetingMinutes',
  'daysSinceRegistration',
  'hostedMeetingMinutes',
  'last30Days',
  'lastLoginAt',
  'lastMeetingAt',
  'loginCount',
  'meetingsHosted',
  'meetingsJoined',
  'memberSince',
  'totalMeetingMinutes',
];

/** The meeting figures of an account without any counted report. */
export const NO_MEETINGS = {
  meetingsHosted: 0,
  meetingsJoined: 0,
  totalMeetingMinutes: 0,
  hostedMeetingMinutes: 0,
  averageMeetingMinutes: 0,
  lastMeetingAt: null,
  last30Days: { meetings: 0, minutes: 0 },
};

/** Nothing of `userId` was recorded: no report row, no derived row, zero figures on REST. */
export async function expectNothingCounted(t: TestServer, userId: string, token: string): Promise<void> {
  const [rows] = await t.sql<{ usage: number; meetings: number; totals: number }>(
    `select (select count(*)::int from meeting_usage where user_id = $1) as usage,
            (select count(*)::int from user_meetings where user_id = $1) as meetings,
            (select count(*)::int from user_meeting_totals where user_id = $1) as totals`,
    [userId],
  );
  expect(rows).toEqual({ usage: 0, meetings: 0, totals: 0 });
  expect(await restStats(t, token)).toMatchObject(NO_MEETINGS);
}
