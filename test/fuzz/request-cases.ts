// Mutations of a request's head: its credentials, path, query string, method and headers.
import { bodyOf, FRESH_TOKEN, header, MAIN_TOKEN, setHeader, type Draft, type Family } from './draft.js';
import type { Rng } from './random.js';
import type { Target } from './targets.js';
import { forgedToken, garbageToken } from './tokens.js';
import { jsonBytes, oddString, oddValue, pct } from './values.js';

const any = () => true;

/** The token the draft carries (main or fresh), for variants that alter it. */
function tokenOf(d: Draft): string {
  return header(d, 'authorization')?.includes(FRESH_TOKEN) ? FRESH_TOKEN : MAIN_TOKEN;
}

export const authFamily: Family = {
  name: 'auth',
  applies: any,
  variants: {
    'no credentials': (d) => {
      setHeader(d, 'Authorization', undefined);
      setHeader(d, 'X-Internal-Key', undefined);
    },
    'garbage bearer token': (d, _t, g) => setHeader(d, 'Authorization', `Bearer ${garbageToken(g.rng)}`),
    'forged token (real key, odd claims)': (d, _t, g) => setHeader(d, 'Authorization', `Bearer ${forgedToken(g.rng, g.known)}`),
    'odd scheme or spacing': (d, _t, g) => {
      const token = tokenOf(d);
      setHeader(d, 'Authorization', g.rng.pick([`bearer ${token}`, `Bearer  ${token}`, `Bearer\t${token}`, token, `Bearer ${token} extra`, `Token ${token}`, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Bearer ${token},Bearer ${token}`]));
    },
    'tampered token': (d, _t, g) => {
      const token = tokenOf(d);
      setHeader(d, 'Authorization', `Bearer ${g.rng.pick([`${token}A`, `${token}.`, `x${token}`, `${token}%00`, `${token}==`])}`);
    },
    'two authorization headers': (d, _t, g) => d.headers.push(['Authorization', `Bearer ${garbageToken(g.rng)}`]),
    'non-ASCII token': (d, _t, g) => setHeader(d, 'Authorization', `Bearer ${g.rng.pick(['ключ', 'é', '\u00ff\u00fe', '😀'])}`),
    'odd internal key': (d, _t, g) => {
      const key = g.internalKey;
      const odd = g.rng.pick(['', 'x', `${key} `, key.toUpperCase(), key.slice(0, -1), `${key}${key}`, 'é'.repeat(40), 'k'.repeat(9000)]);
      setHeader(d, 'X-Internal-Key', odd);
      if (g.rng.chance(0.3)) d.headers.push(['X-Internal-Key', key]);
    },
  },
};

const ODD_SEGMENTS = [
  '%ZZ', '%', '%E0%A4%A', '%00', '%C0%AF', '%ED%A0%80', '%FF%FE', '%F0%9F%98%80', '%D0%BA%D0%BB', 'ключ', '..', '.', '%2e%2e', 'a%2Fb',
  '..%2F..%2Fetc%2Fpasswd', '%u0041', '%20', '%2525', '*', "'", '%0d%0aX-Injected:%201', '00000000-0000-0000-0000-000000000000',
];

function splitPath(d: Draft): { path: string; query: string } {
  const at = d.path.indexOf('?');
  return at < 0 ? { path: d.path, query: '' } : { path: d.path.slice(0, at), query: d.path.slice(at) };
}

export const pathFamily: Family = {
  name: 'path',
  applies: any,
  variants: {
    'odd path parameter': (d, t, g) => {
      if (t.transport !== 'rest' || t.pathParams.length === 0) return false;
      const { path, query } = splitPath(d);
      const segments = path.split('/');
      const odd = g.rng.pick<() => string>([
        () => g.rng.pick(ODD_SEGMENTS),
        () => 'x'.repeat(g.rng.pick([300, 5000])),
        () => g.known.sid.toUpperCase(),
        () => g.known.sid.replace(/-/g, ''),
        () => `${g.known.sid}x`,
        () => pct(oddString(g.rng)).slice(0, 8000),
      ])();
      segments[segments.length - 1] = odd;
      d.path = segments.join('/') + query;
    },
    'malformed percent-encoding': (d, _t, g) => {
      const { path, query } = splitPath(d);
      const odd = g.rng.pick(['%ZZ', '%', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%FF', '%%']);
      d.path = (g.rng.chance(0.5) ? `${path}/${odd}` : path.replace(/\/([^/]*)$/, `/$1${odd}`)) + query;
    },
    'raw non-ASCII bytes': (d, _t, g) => {
      d.path = d.path.replace(/\/([^/?]*)(\?|$)/, `/$1${g.rng.pick(['ключ', 'é', '😀', '\u00ff'])}$2`);
    },
    'dot segments': (d, _t, g) => {
      const { path, query } = splitPath(d);
      const segments = path.split('/');
      const at = g.rng.int(1, segments.length - 1);
      segments.splice(at, 0, g.rng.pick(['.', 'x/..', '%2e', '%2e%2e', '..', '...']));
      d.path = segments.join('/') + query;
    },
    'encoded slash': (d) => {
      const { path, query } = splitPath(d);
      const last = path.lastIndexOf('/');
      d.path = `${path.slice(0, last)}%2F${path.slice(last + 1)}${query}`;
    },
    'extra slashes': (d, _t, g) => {
      const { path, query } = splitPath(d);
      d.path = g.rng.pick([`${path}/`, `/${path}`, path.replace('/api/', '/api//'), `${path}//`]) + query;
    },
    'case changed': (d) => {
      const { path, query } = splitPath(d);
      d.path = path.toUpperCase() + query;
    },
    'very long path': (d, _t, g) => {
      const { path, query } = splitPath(d);
      d.path = `${path}/${'a'.repeat(g.rng.pick([2000, 9000, 15_000]))}${query}`;
    },
    'absolute-form target': (d, _t, g) => {
      d.path = `${g.rng.pick(['http://fuzz.invalid', 'http://127.0.0.1', 'https://x@127.0.0.1:1', 'ftp://a'])}${d.path}`;
    },
    'fragment, matrix or control characters': (d, _t, g) => {
      const { path, query } = splitPath(d);
      d.path = path + g.rng.pick(['#frag', ';a=b', '%23x', '%00', '%0d%0a', '%09', '\u0000', '\t']) + query;
    },
  },
};

function addQuery(d: Draft, query: string): void {
  d.path += (d.path.includes('?') ? '&' : '?') + query;
}

const queryName = (t: Target, rng: Rng) => (t.transport === 'rest' && t.query.length > 0 ? rng.pick(t.query).name : rng.pick(['limit', 'cursor', 'q']));

export const queryFamily: Family = {
  name: 'query',
  applies: any,
  variants: {
    'malformed percent-encoding': (d, t, g) => addQuery(d, g.rng.pick([`%ZZ=1`, `${queryName(t, g.rng)}=%E0%A4%A`, `${queryName(t, g.rng)}=%`, '%=%', `${queryName(t, g.rng)}=%ED%A0%80`])),
    'repeated parameter': (d, t, g) => {
      const name = queryName(t, g.rng);
      addQuery(d, `${name}=1&${name}=2${g.rng.chance(0.5) ? `&${name}=` : ''}`);
    },
    'bracket parameters': (d, t, g) => addQuery(d, g.rng.pick([`${queryName(t, g.rng)}[a]=1`, `${queryName(t, g.rng)}[]=1`, 'a[b][c][d][e][f][g]=1', '__proto__[polluted]=1', 'constructor[prototype][polluted]=1'])),
    'odd values': (d, t, g) => {
      const value = g.rng.pick(['-1', '0', '101', '1e3', 'abc', '99999999999999999999', '1.5', '', '%20', '0x10', 'NaN', 'Infinity', '-0', pct(oddString(g.rng)).slice(0, 6000)]);
      addQuery(d, `${queryName(t, g.rng)}=${value}`);
    },
    'odd cursor': (d, _t, g) => {
      const cursor = g.known.cursor ?? 'AAAA';
      const value = g.rng.pick<() => string>([
        () => cursor.slice(0, g.rng.int(0, cursor.length - 1)),
        () => `${cursor}x`,
        () => cursor.replace(/./, 'Z'),
        () => Buffer.from(g.rng.pick(['-1', '9'.repeat(40), '1e400', 'null', '{"id":"x"}', '2024-01-01T00:00:00Z:x', '\u0000', ':', `${'9'.repeat(25)}:${'9'.repeat(25)}`])).toString('base64url'),
        () => 'A'.repeat(g.rng.pick([1, 1000, 9000])),
        () => '!!!',
        () => pct(oddString(g.rng)).slice(0, 4000),
      ])();
      addQuery(d, `cursor=${value}`);
    },
    'many parameters': (d, _t, g) => addQuery(d, Array.from({ length: g.rng.pick([1100, 3000]) }, (_, i) => `p${i}=1`).join('&')),
    // Around the query parser's limit of 1,000 parameters, and past what fits in the head (431).
    'many repeated parameters': (d, t, g) => addQuery(d, Array.from({ length: g.rng.pick([999, 1000, 1001, 2500, 7000]) }, () => `${queryName(t, g.rng)}=1`).join('&')),
    'many empty parameters': (d, _t, g) => addQuery(d, '&'.repeat(g.rng.pick([998, 1000, 5000, 15_000]))),
    'many bracket parameters': (d, _t, g) => addQuery(d, Array.from({ length: g.rng.pick([100, 1500]) }, (_, i) => `a[${i}][b]=1`).join('&')),
    'long query': (d, _t, g) => addQuery(d, `q=${'q'.repeat(g.rng.pick([4000, 12_000, 20_000]))}`),
  },
};

export const methodFamily: Family = {
  name: 'method',
  applies: any,
  variants: {
    'other method': (d, _t, g) => {
      d.method = g.rng.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => m !== d.method));
    },
    HEAD: (d) => {
      d.method = 'HEAD';
      d.json = undefined;
      d.body = undefined;
    },
    'CORS preflight': (d, _t, g) => {
      const method = d.method;
      d.method = 'OPTIONS';
      d.headers.push(['Origin', g.rng.pick(['https://evil.example', 'null', 'http://127.0.0.1', `http://${'o'.repeat(3000)}`])], ['Access-Control-Request-Method', method]);
      if (g.rng.chance(0.5)) d.headers.push(['Access-Control-Request-Headers', g.rng.pick(['authorization, content-type', 'x-'.repeat(2000), '%%%', 'apollo-require-preflight'])]);
    },
    'unusual method': (d, _t, g) => {
      d.method = g.rng.pick(['PROPFIND', 'SEARCH', 'QUERY', 'PURGE', 'MKCOL', 'LINK', 'TRACE', 'REPORT', 'SUBSCRIBE', 'M-SEARCH']);
    },
    'invalid method token': (d, _t, g) => {
      d.method = g.rng.pick(['get', 'GETT', 'G ET', '{}', 'POST\u0000', 'ПОСТ', 'X'.repeat(100)]);
    },
    'body on GET': (d, t, g) => {
      if (d.method !== 'GET') return false;
      d.body = jsonBytes({ a: oddValue(g.rng) });
      setHeader(d, 'Content-Type', 'application/json');
      if (t.transport === 'rest' && g.rng.chance(0.5)) setHeader(d, 'Content-Type', 'text/plain');
    },
  },
};

export const headersFamily: Family = {
  name: 'headers',
  applies: any,
  variants: {
    'odd Accept': (d, _t, g) =>
      setHeader(d, 'Accept', g.rng.pick(['application/graphql-response+json', 'text/html', '*/*;q=0', 'image/webp', 'application/json;q=abc', 'x'.repeat(5000), '', 'multipart/mixed; deferSpec=20220824', 'text/event-stream', ',,,;;;'])),
    'Expect: 100-continue': (d) => d.headers.push(['Expect', '100-continue']),
    'unknown expectation': (d, _t, g) => d.headers.push(['Expect', g.rng.pick(['fuzz', '100-continue, fuzz', ''])]),
    'HTTP/1.0 without Host': (d) => {
      d.version = 'HTTP/1.0';
      d.framing = 'none';
      const body = bodyOf(d);
      if (body.length > 0) d.headers.push(['Content-Length', String(body.length)]);
    },
    'no Host': (d) => {
      d.framing = 'none';
      d.headers.push(['Content-Length', String(bodyOf(d).length)], ['Connection', 'close']);
    },
    'two Host headers': (d) => d.headers.push(['Host', 'fuzz.invalid'], ['Host', 'other.invalid']),
    'oversized header': (d, _t, g) => d.headers.push(['X-Pad', 'p'.repeat(g.rng.pick([9000, 17_000, 70_000]))]),
    'many headers': (d, _t, g) => {
      for (let i = 0; i < g.rng.pick([120, 2100]); i++) d.headers.push([`X-H${i}`, 'v']);
    },
    'odd header bytes': (d, _t, g) =>
      d.headers.push(g.rng.pick<[string, string]>([['X-Odd', 'ключ'], ['X-Odd', '\u00ff\u00fe'], ['X-Odd', 'a\r\n folded'], ['X Odd', 'v'], ['X-Odd', 'a\u0000b'], ['Content-Type\u0000', 'x']])),
    'forwarding headers': (d, _t, g) =>
      d.headers.push(
        ['X-Forwarded-For', g.rng.pick(['garbage', 'unknown, ::ffff:1.2.3.4', '1.2.3.4, '.repeat(500), '999.999.999.999', '[::1]:80', ''])],
        ['Forwarded', g.rng.pick(['for=;proto=', 'for="[::1', 'x'.repeat(3000)])],
      ),
    'cross-origin request': (d, _t, g) => d.headers.push(['Origin', g.rng.pick(['https://evil.example', 'null', '%ZZ', 'http://[::1', `https://${'a'.repeat(3000)}.example`])]),
    'conditional and range headers': (d, _t, g) =>
      d.headers.push(
        g.rng.pick<[string, string]>([['If-None-Match', '*'], ['If-None-Match', 'W/"x", "y", garbage'], ['If-None-Match', '"'.repeat(5000)], ['If-Modified-Since', 'not a date'], ['Range', 'bytes=0-0'], ['Range', 'bytes=-1'], ['Range', 'bytes=99999999999999999999-'], ['Range', 'bytes=5-1,0-'], ['If-Range', '"x"']]),
      ),
    'odd User-Agent': (d, _t, g) => setHeader(d, 'User-Agent', g.rng.pick(['é'.repeat(600), '😀'.repeat(300), ' ', 'a b '.repeat(400), 'Mozilla/5.0 (\u202e)', ''])),
    'odd Content-Length': (d, _t, g) => {
      const body = bodyOf(d);
      d.framing = 'none';
      d.headers.push(['Content-Length', g.rng.pick([`+${body.length}`, ` ${body.length} `, `${body.length}, ${body.length}`, `${body.length}, ${body.length + 1}`, '-1', '1e3', '99999999999999999999', '0x10', 'abc'])], ['Connection', 'close']);
      d.delivery = { ending: 'half-close' };
    },
  },
};
