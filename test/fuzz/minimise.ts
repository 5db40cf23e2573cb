// Shorter reproductions: a request that shows a finding is sent again without one header line at a
// time, and keeps the lines the finding needs.
import type { Sent } from './run.js';

/** Header lines never dropped: without them the request would be framed or routed differently. */
const KEPT = /^(host|content-length|transfer-encoding|connection):/i;

/**
 * `sent` without the header lines that `reproduces` shows the finding does not need, tried one at a
 * time until `until` (ms since the epoch). Requests cut inside their head are left as they are.
 */
export async function minimise(sent: Sent, reproduces: (raw: Buffer, cutAt: number | undefined) => Promise<boolean>, until: number): Promise<Sent> {
  const headEnd = sent.raw.indexOf('\r\n\r\n');
  const cutAt = sent.delivery.cutAt;
  if (headEnd < 0 || (cutAt !== undefined && cutAt <= headEnd)) return sent;
  let lines = sent.raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const rest = sent.raw.subarray(headEnd);
  let removed = 0;
  const build = (kept: string[]) => Buffer.concat([Buffer.from(kept.join('\r\n'), 'latin1'), rest]);
  for (let i = lines.length - 1; i >= 1 && Date.now() < until; i--) {
    if (KEPT.test(lines[i]!)) continue;
    const shorter = lines.filter((_, j) => j !== i);
    const dropped = Buffer.byteLength(lines[i]!, 'latin1') + 2;
    if (await reproduces(build(shorter), cutAt === undefined ? undefined : cutAt - removed - dropped)) {
      lines = shorter;
      removed += dropped;
    }
  }
  if (removed === 0) return sent;
  return { ...sent, id: `${sent.id}, without the header lines it does not need`, raw: build(lines), delivery: { ...sent.delivery, cutAt: cutAt === undefined ? undefined : cutAt - removed } };
}
