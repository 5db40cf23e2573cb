// The top of a V8 CPU profile (node --cpu-prof): self time by function and by package.
// Usage: node dist/bench/profile-top.js file.cpuprofile [rows]
import { readFileSync } from 'node:fs';

process.stdout.on('error', () => process.exit(0)); // piped into head

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-top <file.cpuprofile> [rows]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const rows = Number(rowsArg ?? 30);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = profile.endTime - profile.startTime;

const where = (url: string): string => {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node (internal)';
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url;
};

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const fn = `${functionName || '(anonymous)'} ${where(url)}${url ? `:${lineNumber + 1}` : ''}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byPackage.set(where(url), (byPackage.get(where(url)) ?? 0) + us);
}
const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title} (of ${(total / 1000).toFixed(0)} ms profiled)\n`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    process.stdout.write(`${(us / 1000).toFixed(0).padStart(8)} ms ${((us / total) * 100).toFixed(1).padStart(5)}%  ${name}\n`);
  }
};
print('self time by package', byPackage);
print('self time by function', byFunction);

// Inclusive ("total") time of the service's own functions: where a slow path spends its time.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map<string, number>();
profile.samples.forEach((id, i) => {
  const seen = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const { functionName, url, lineNumber } = byId.get(n)!.callFrame;
    if (!url.includes('/dist/')) continue;
    seen.add(`${functionName || '(anonymous)'} ${where(url)}:${lineNumber + 1}`);
  }
  for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
print('total time of the service\'s functions (self + callees)', inclusive);
