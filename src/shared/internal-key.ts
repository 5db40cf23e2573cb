import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a presented `X-Internal-Key` is INTERNAL_API_KEY: the service-to-service routes and, in
 * production, the subgraph's `_service { sdl }`. Compares digests, so the comparison takes the same
 * time whatever the presented key's length. Without a configured key, no key is right.
 */
export function internalKeyCheck(key: string | undefined): (presented: string | undefined) => boolean {
  if (!key) return () => false;
  const expected = createHash('sha256').update(key).digest();
  return (presented) => {
    const digest = createHash('sha256').update(presented ?? '').digest();
    return timingSafeEqual(expected, digest) && Boolean(presented);
  };
}
