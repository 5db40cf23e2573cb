// The operator console's build, part of `npm run build` (and so of `npm start` and `npm test`):
// type-checks the console's code, then Vite compiles it into dist/console. Skipped in ~0.1 s when
// nothing it is made from changed since the last build (its sources, the client module's and the lockfile, by content),
// so that `npm start` stays quick.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = fileURLToPath(new URL('.', import.meta.url));
const root = join(app, '../../..');
const out = join(root, 'dist/console');
const stamp = join(out, '.inputs-sha256');

function inputsHash() {
  // The console bundles the client module too (src/client/).
  const files = [app, join(root, 'src/client')]
    .flatMap((dir) => readdirSync(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .concat(join(root, 'package-lock.json'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${relative(root, file)}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const inputs = inputsHash();
let built;
try {
  built = readFileSync(stamp, 'utf8');
} catch {
  built = undefined;
}
if (built === inputs) process.exit(0);

const started = Date.now();
const tsc = join(root, 'node_modules/typescript/bin/tsc');
for (const project of ['tsconfig.json', 'tsconfig.node.json']) {
  const check = spawnSync(process.execPath, [tsc, '-p', join(app, project)], { stdio: 'inherit' });
  if (check.status !== 0) {
    process.stderr.write(`console: ${relative(root, join(app, project))} does not type-check\n`);
    process.exit(1);
  }
}
const { build } = await import('vite');
await build({ configFile: join(app, 'vite.config.ts') });
writeFileSync(stamp, inputs);
process.stdout.write(`console: built into ${relative(root, out)} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
