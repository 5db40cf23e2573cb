// `npm run docs:config`: writes docs/configuration.md from the configuration schema (test/docs/configuration.test.ts fails when it is stale).
import { writeFileSync } from 'node:fs';
import { renderConfigReference } from './reference.js';

// From dist/src/config/, where `npm run docs:config` runs it, to the repository's docs/.
const target = new URL('../../../docs/configuration.md', import.meta.url);
writeFileSync(target, renderConfigReference());
process.stdout.write(`wrote ${target.pathname}\n`);
