// `npm run migrate`: applies pending migrations to DATABASE_DIRECT_URL when set, else to DATABASE_URL,
// or to the embedded database; refused, saying what to set, through a transaction-mode pooler.
import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config/config.js';
import { startEmbeddedDatabase } from './embedded.js';
import { assertMigratable, checkSessions, databasePlan, migrateAsPlanned, PoolModeError } from './plan.js';

async function main(): Promise<string[]> {
  const config = loadConfig();
  if (config.database.url) {
    const plan = databasePlan(config);
    assertMigratable(plan);
    await checkSessions(plan, { service: false, migrations: true });
    return migrateAsPlanned(plan);
  }
  const embedded = await startEmbeddedDatabase(config.dataDir);
  try {
    return await migrateAsPlanned(databasePlan(config, embedded.url));
  } finally {
    await embedded.stop();
  }
}

await main().then(
  (applied) => process.stdout.write(applied.length > 0 ? `Applied: ${applied.join(', ')}\n` : 'The database is up to date.\n'),
  (error: unknown) => {
    if (!(error instanceof PoolModeError || error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  },
);
