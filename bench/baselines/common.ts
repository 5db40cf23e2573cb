// Shared by the baseline servers: the same token check and the same SQL as the service, nothing else.
import { createPrivateKey, createPublicKey, createSecretKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { jwtVerify } from 'jose';
import jwt from 'jsonwebtoken';
import pg from 'pg';

/**
 * The service's per-request session check (SessionRepository.liveUser in
 * src/modules/session/session.repository.ts, which builds it from the entities' metadata), written
 * out for one session: the same tables, columns, conditions and join. The service asks it for all
 * the requests of one turn of its event loop in one statement; a plain server, as here, asks once
 * per request.
 */
const LIVE_USER_SQL = `select u.id, u.phone, u.nickname, u.avatar_key, u.password_hash is not null as has_password, u.role, u.created_at, u.last_login_at, s.last_used_at < now() - interval '60 seconds' as stale
         from sessions s join users u on u.id = s.user_id
        where s.id = $1 and s.user_id = $2 and s.revoked_at is null and s.expires_at > now() and u.blocked_at is null`;

export interface LiveUserRow {
  id: string;
  phone: string;
  nickname: string;
  avatar_key: string | null;
  has_password: boolean;
  role: string;
  created_at: Date;
  last_login_at: Date | null;
}

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

export const port = Number(env('PORT'));
// Exit normally on SIGTERM, so that --cpu-prof can write its profile.
process.once('SIGTERM', () => process.exit(0));
/** The same pool size as the service's DATABASE_POOL_SIZE. */
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: Number(env('DATABASE_POOL_SIZE')) });
/**
 * The token check, with the algorithm the service signs with (JWT_ALGORITHM): HS256 with the
 * secret, ES256 by jsonwebtoken and EdDSA by jose with the first key of JWT_PRIVATE_KEYS_FILE, as
 * the service does.
 */
const verify = ((): ((token: string) => Promise<jwt.JwtPayload> | jwt.JwtPayload) => {
  const algorithm = process.env.JWT_ALGORITHM ?? 'HS256';
  const claims = { issuer: 'meeting-accounts', audience: 'meeting-app' };
  if (algorithm === 'HS256') {
    const key = createSecretKey(Buffer.from(env('JWT_SECRET'), 'utf8'));
    return (token) => jwt.verify(token, key, { ...claims, algorithms: ['HS256'] }) as jwt.JwtPayload;
  }
  const [first] = (JSON.parse(readFileSync(env('JWT_PRIVATE_KEYS_FILE'), 'utf8')) as { keys: Record<string, unknown>[] }).keys;
  const key = createPublicKey(createPrivateKey({ key: first as never, format: 'jwk' }));
  if (algorithm === 'ES256') return (token) => jwt.verify(token, key, { ...claims, algorithms: ['ES256'] }) as jwt.JwtPayload;
  return async (token) => (await jwtVerify(token, key, { ...claims, algorithms: ['EdDSA'] })).payload;
})();

/** Bearer token -> the live user, or undefined (no token, bad token, ended session). */
export async function liveUser(authorization: string | undefined): Promise<LiveUserRow | undefined> {
  if (!authorization?.startsWith('Bearer ')) return undefined;
  let claims: jwt.JwtPayload;
  try {
    claims = await verify(authorization.slice(7));
  } catch {
    return undefined;
  }
  const result = await pool.query<LiveUserRow>({ name: 'session_live_user', text: LIVE_USER_SQL, values: [claims.sid, claims.sub] });
  return result.rows[0];
}
