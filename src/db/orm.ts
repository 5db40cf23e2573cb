import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { User } from '../modules/account/user.entity.js';
import { Migration20261121000000 } from './migrations/Migration20261121000000.js';
import { Migration20261121120000 } from './migrations/Migration20261121120000.js';

export interface OrmOptions {
  url: string;
  poolSize: number;
}

/** Migrations are listed explicitly so that the same list runs from source (tests) and from dist. */
export const migrations = [
  { name: 'Migration20261121000000', class: Migration20261121000000 },
  { name: 'Migration20261121120000', class: Migration20261121120000 },
];

export function ormConfig({ url, poolSize }: OrmOptions): Options {
  return defineConfig({
    clientUrl: url,
    entities: [User],
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, silent: true, snapshot: false },
    pool: { min: 0, max: poolSize, idleTimeoutMillis: 30_000 },
    driverOptions: { connectionTimeoutMillis: 5_000 },
    allowGlobalContext: false,
    debug: false,
  });
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}

export type { MikroORM };
