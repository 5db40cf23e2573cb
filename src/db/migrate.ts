// `npm run migrate`: applies pending migrations to DATABASE_URL, or to the embedded database.
import 'reflect-metadata';
import { loadConfig } from '../config/config.js';
import { startEmbeddedDatabase } from './embedded.js';
import { migrate, openOrm } from './orm.js';

const config = loadConfig();
const embedded = config.database.url ? undefined : await startEmbeddedDatabase(config.dataDir);
const orm = await openOrm({ url: config.database.url ?? embedded!.url, poolSize: 1, statementTimeout: !embedded });
try {
  const applied = await migrate(orm, config.database.url);
  process.stdout.write(applied.length > 0 ? `Applied: ${applied.join(', ')}\n` : 'The database is up to date.\n');
} finally {
  await orm.close(true);
  await embedded?.stop();
}
