import pg from 'pg';
import { median, signIn, type Row, type ServiceProcess } from './support.js';

const REPORTS = 100_000;
const ROUNDS = 50;

/** myStats for a user with 100,000 usage reports; the reports are written by SQL to save time. */
export async function statsBench(service: ServiceProcess, databaseUrl: string): Promise<Row[]> {
  const token = await signIn(service, '+8613700137000');
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    // One report every 15 minutes for ~3 years (about 2,900 in the last 30 days), 40,000 meetings,
    // a third hosted; the derived tables are filled as UsageService would have filled them.
    await db.query(
      `insert into meeting_usage (user_id, meeting_id, role, joined_at, left_at, minutes)
       select u.id, 'meeting-' || (g % 40000), case when g % 3 = 0 then 'host' else 'participant' end,
              now() - (g * 15 || ' minutes')::interval - interval '1 hour', now() - (g * 15 || ' minutes')::interval, 60
         from users u, generate_series(1, $1) g
        where u.phone = '+8613700137000'`,
      [REPORTS],
    );
    await db.query(`insert into user_meetings select distinct user_id, meeting_id from meeting_usage`);
    await db.query(`insert into user_meeting_roles select distinct user_id, meeting_id, role from meeting_usage`);
    await db.query(
      `insert into user_meeting_totals
       select user_id, count(distinct meeting_id), count(distinct meeting_id) filter (where role = 'host'),
              count(distinct meeting_id) filter (where role = 'participant'), sum(minutes),
              coalesce(sum(minutes) filter (where role = 'host'), 0), max(joined_at)
         from meeting_usage group by user_id`,
    );
    await db.query('vacuum analyze meeting_usage');
  } finally {
    await db.end();
  }
  const query = JSON.stringify({ query: '{ myStats { meetingsHosted meetingsJoined totalMeetingMinutes averageMeetingMinutes last30Days { meetings minutes } } }' });
  const ask = () =>
    fetch(`${service.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: query });
  for (let i = 0; i < 5; i++) await ask(); // warm-up: JIT, plan cache, buffer cache
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const res = await ask();
    const body = (await res.json()) as { data?: { myStats: { totalMeetingMinutes: number } } };
    times.push(performance.now() - t0);
    if (body.data?.myStats.totalMeetingMinutes !== REPORTS * 60) throw new Error(`unexpected stats ${JSON.stringify(body)}`);
  }
  const ms = median(times);
  const p95 = [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.95)]!;
  return [
    {
      case: `stats: myStats with ${REPORTS.toLocaleString('en')} reports (median of ${ROUNDS}, GraphQL over HTTP)`,
      value: `${ms.toFixed(1)} ms (p95 ${p95.toFixed(1)} ms)`,
      target: '< 50 ms',
      pass: ms < 50,
    },
  ];
}
