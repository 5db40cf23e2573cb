// A scenario beside the stream of single requests: values that may be used once (API.md 10.0), used
// once, then sent again in every other spelling (padded, with whitespace, changed in the unused bits
// of a last character, a letter in the other case), in a JSON body with the key twice, and as a
// repeated query and form parameter. Any answer that took one (2xx, GraphQL data) is a finding. The
// refresh token and the mfaToken are a new user's real ones, used; the access token is live; the
// fuzz service has no identity provider, so ID tokens, link tokens and results are values of the
// right shape that no route knows (test/hardening/single-use-*.test.ts uses real, used ones).
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { paddedSpellings, spellingsOf, type Spelling } from '../helpers/spellings.js';
import type { Draft, GenContext } from './draft.js';
import { goodDraft, type Planned } from './plan.js';
import { send, type Sent, type Service } from './run.js';
import type { Target } from './targets.js';

const SPELLING_FAMILY = 'used-value spelling';

/** Where a value goes: its REST route (JSON field) and its GraphQL operation (variable `v`), with the other fields they need. */
interface Use {
  value: string;
  rest: string;
  field: string;
  graphql: string;
  operation: string;
  others?: Record<string, string>;
}

/** The answers of this scenario that took a spelling of a value: a 2xx on REST, data of the field on GraphQL. */
export function acceptedSpellings(sent: Sent[]): Sent[] {
  return sent.filter((s) => {
    const answer = s.exchange.answers[0];
    if (s.planned.family !== SPELLING_FAMILY || !answer || answer.status >= 300) return false;
    if (s.planned.target.transport === 'rest') return true;
    try {
      const data = (JSON.parse(answer.body.toString('utf8')) as { data?: Record<string, unknown> | null }).data;
      return Object.values(data ?? {}).some((value) => value !== null);
    } catch {
      return false;
    }
  });
}

/** Uses a new user's refresh token and an mfaToken once, then sends every spelling of them and of the others; what was sent. */
export async function usedValueSpellings(targets: Target[], g: GenContext, service: Service, url: string): Promise<Sent[]> {
  const call = async (path: string, body: unknown, token?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) };
    const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const phone = `+86139${g.rng.digits(8)}`;
  const login = async () => call('/api/v1/auth/login', { phone, code: await service.sessions.code(phone, 'login') });
  const first = await login();
  const rotated = await call('/api/v1/auth/refresh', { refreshToken: first.body.refreshToken });
  if (rotated.status !== 200) throw new Error(`refresh: ${rotated.status}`);
  // TOTP on, confirmed with the code of the step before, so that the current step's code is unused.
  const started = await call('/api/v1/users/me/mfa/totp', undefined, rotated.body.accessToken);
  const totp = new TOTP({ secret: Secret.fromBase32(started.body.secret), algorithm: 'SHA1', digits: 6, period: 30 });
  const codeAt = (steps: number) => totp.generate({ timestamp: Date.now() + steps * 30_000 });
  await call('/api/v1/users/me/mfa/totp/confirm', { code: codeAt(-1) }, rotated.body.accessToken);
  const asked = await login();
  const verified = await call('/api/v1/auth/mfa/verify', { mfaToken: asked.body.mfaToken, code: codeAt(0) });
  if (verified.status !== 200) throw new Error(`mfa verify: ${verified.status} ${JSON.stringify(verified.body)}`);

  const opaque = () => randomBytes(32).toString('base64url');
  const uses: Use[] = [
    { value: first.body.refreshToken, rest: 'POST /api/v1/auth/refresh', field: 'refreshToken', graphql: 'Mutation.refreshToken', operation: 'mutation($v: String!) { refreshToken(refreshToken: $v) { accessToken } }' },
    {
      value: asked.body.mfaToken,
      rest: 'POST /api/v1/auth/mfa/verify',
      field: 'mfaToken',
      others: { code: codeAt(0) },
      graphql: 'Mutation.verifyMfa',
      operation: `mutation($v: String!) { verifyMfa(input: { mfaToken: $v, code: "${codeAt(0)}" }) { accessToken } }`,
    },
    { value: rotated.body.accessToken, rest: 'POST /api/v1/auth/oidc/{provider}/id-token', field: 'idToken', graphql: 'Mutation.signInWithIdToken', operation: 'mutation($v: String!) { signInWithIdToken(provider: "corp", idToken: $v) { accessToken } }' },
    { value: opaque(), rest: 'POST /api/v1/auth/oidc/link', field: 'linkToken', others: { phone, code: '000000' }, graphql: 'Mutation.linkExternalIdentity', operation: `mutation($v: String!) { linkExternalIdentity(linkToken: $v, phone: "${phone}", code: "000000") { accessToken } }` },
    { value: opaque(), rest: 'POST /api/v1/auth/oidc/exchange', field: 'result', graphql: 'Mutation.completeExternalSignIn', operation: 'mutation($v: String!) { completeExternalSignIn(result: $v) { accessToken } }' },
  ];
  const planned: Planned[] = [];
  const plan = (targetName: string, variant: string, change: (d: Draft) => void) => {
    const target = targets.find((t) => t.name === targetName);
    if (!target) return;
    const draft = goodDraft(target, g, false, { provider: 'corp' });
    change(draft);
    planned.push({ target, family: SPELLING_FAMILY, variant, draft });
  };
  for (const use of uses) {
    const spellings = spellingsOf(use.value);
    const [a, b] = paddedSpellings(use.value) as [Spelling, Spelling];
    const twice = (json: (v: string) => string) => `${json(a.value).slice(0, -1)},${json(b.value).slice(1)}`;
    for (const { name, value } of spellings) {
      plan(use.rest, `${use.field}: ${name}`, (d) => (d.json = { ...use.others, [use.field]: value }));
      plan(use.graphql, `${use.field}: ${name}`, (d) => (d.json = { query: use.operation, variables: { v: value } }));
    }
    // The same key twice: whichever a parser keeps, it is a spelling of the value, never the value.
    plan(use.rest, `${use.field}: the key twice`, (d) => (d.body = Buffer.from(twice((v) => JSON.stringify({ ...use.others, [use.field]: v })))));
    plan(use.graphql, `${use.field}: the variable twice`, (d) => (d.body = Buffer.from(`{"query":${JSON.stringify(use.operation)},"variables":${twice((v) => JSON.stringify({ v }))}}`)));
    const repeated = `${use.field}=${encodeURIComponent(a.value)}&${use.field}=${encodeURIComponent(b.value)}`;
    plan(use.rest, `${use.field}: a repeated query parameter`, (d) => (d.path += `${d.path.includes('?') ? '&' : '?'}${repeated}`));
    plan(use.rest, `${use.field}: a repeated form parameter`, (d) => {
      d.json = undefined;
      d.body = Buffer.from(repeated);
      d.headers = d.headers.filter(([n]) => n.toLowerCase() !== 'content-type').concat([['Content-Type', 'application/x-www-form-urlencoded']]);
    });
  }
  // The live access token: its other spellings name no session (a header's value loses the whitespace around it).
  const bearer = rotated.body.accessToken as string;
  for (const { name, value } of [...spellingsOf(bearer, { whitespace: false }), { name: 'a second space after Bearer', value: ` ${bearer}` }]) {
    for (const target of ['GET /api/v1/users/me', 'Query.me']) {
      plan(target, `bearer: ${name}`, (d) => (d.headers = d.headers.filter(([n]) => n.toLowerCase() !== 'authorization').concat([['Authorization', `Bearer ${value}`]])));
    }
  }
  const sent: Sent[] = [];
  for (const [i, p] of planned.entries()) sent.push(await send(`spelling ${i + 1}`, p, service));
  return sent;
}
