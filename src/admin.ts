// `npm run admin -- grant|revoke|list`: the operator roles of accounts (API.md 8.1), from the command line
//   grant   gives the account of a phone number SUPPORT or ADMIN
//   revoke  makes it a USER again
//   list    the accounts holding SUPPORT or ADMIN
// Every instance sees a change on the account's next request (the session check reads the role), and
// the account's security events record it as ROLE_CHANGED, the audit log as ROLE_CHANGED with no actor
// (`detail.via` "command line"). In the container: node dist/src/admin.js <command>.
import 'reflect-metadata';
import { InvalidFieldNameException, TableNotFoundException } from '@mikro-orm/core';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { Database } from './db/database.js';
import { openSharedEmbeddedDatabase } from './db/embedded.js';
import { openOrm } from './db/orm.js';
import { assertMigratable, checkSessions, databasePlan, migrateAsPlanned, PoolModeError } from './db/plan.js';
import { Role } from './modules/account/role.js';
import type { UserView } from './modules/account/user.view.js';
import { createServices, type Services } from './services.js';
import { AppError, ErrorCode } from './shared/errors/app-error.js';
import { createLogger } from './shared/logger.js';

const USAGE = `usage: npm run admin -- <command>
  grant <phone> SUPPORT|ADMIN
                 give the account of <phone> (E.164, or national form of DEFAULT_PHONE_REGION) a role
  revoke <phone> make the account a USER again
  list           the operators, oldest account first: role, phone, nickname, id, member since`;

const GRANTABLE = [Role.SUPPORT, Role.ADMIN];

class Refusal extends Error {}

type Command = { name: 'list' } | { name: 'set-role'; phone: string; role: Role };

/** The command line, checked before the database is opened. */
function parse(args: string[]): Command {
  const [command, ...rest] = args;
  switch (command) {
    case 'list':
      if (rest.length > 0) throw new Refusal(`list takes no arguments (got ${rest.join(' ')})`);
      return { name: 'list' };
    case 'grant': {
      const [phone, role, ...extra] = rest;
      if (!phone) throw new Refusal('grant needs a phone number and a role: npm run admin -- grant <phone> SUPPORT|ADMIN');
      if (!role) throw new Refusal(`grant needs a role after the phone number: ${GRANTABLE.join(' or ')}`);
      if (extra.length > 0) throw new Refusal(`grant takes a phone number and a role (got also ${extra.join(' ')})`);
      return { name: 'set-role', phone, role: grantable(role) };
    }
    case 'revoke': {
      const [phone, ...extra] = rest;
      if (!phone) throw new Refusal('revoke needs a phone number: npm run admin -- revoke <phone>');
      if (extra.length > 0) throw new Refusal(`revoke takes a phone number only (got also ${extra.join(' ')})`);
      return { name: 'set-role', phone, role: Role.USER };
    }
    default:
      throw new Refusal(USAGE);
  }
}

function grantable(name: string): Role {
  const role = GRANTABLE.find((r) => r === name.toUpperCase());
  if (role) return role;
  if (name.toUpperCase() === Role.USER) throw new Refusal('USER is not granted: take a role away with npm run admin -- revoke <phone>');
  throw new Refusal(`unknown role ${name}: the roles to grant are ${GRANTABLE.join(' and ')}`);
}

async function main(args: string[]): Promise<string> {
  const command = parse(args);
  const config = loadConfig();
  // The service's own database and start-up, but no listener: it migrates only where the service
  // would on start (MIGRATE_ON_START), and one connection serves one command.
  // On the embedded database, a running service's is reached through its socket (no need to stop it).
  const embedded = config.database.url ? undefined : await openSharedEmbeddedDatabase(config.dataDir);
  try {
    const plan = databasePlan(config, embedded?.url);
    if (config.migrateOnStart) assertMigratable(plan);
    await checkSessions(plan, { service: true, migrations: config.migrateOnStart });
    const orm = await openOrm({ url: plan.url, poolSize: 1, limits: plan.limits });
    try {
      if (config.migrateOnStart) {
        const applied = await migrateAsPlanned(plan, orm);
        if (applied.length > 0) process.stderr.write(`Applied migrations (MIGRATE_ON_START): ${applied.join(', ')}\n`);
      }
      const db = await Database.open(orm, { prepare: plan.namedStatements });
      // Warnings and faults only, on standard error: standard output is the command's answer.
      const services = await createServices(config, db, createLogger('warn', pino.destination({ dest: 2, sync: true })));
      try {
        return await run(command, services, config).catch(unmigrated);
      } finally {
        await services.close();
      }
    } finally {
      await orm.close(true);
    }
  } finally {
    await embedded?.stop();
  }
}

async function run(command: Command, { accounts, admin }: Services, config: Config): Promise<string> {
  if (command.name === 'list') {
    const operators = await accounts.operators();
    if (operators.length === 0) return 'No operators: every account is USER. Give one a role with npm run admin -- grant <phone> SUPPORT|ADMIN';
    return operators.map(operatorLine).join('\n');
  }
  const { phone, role } = command;
  const changed = await admin.setRoleFromCommandLine(phone, role).catch((error: unknown) => {
    if (error instanceof AppError && error.code === ErrorCode.INVALID_PHONE) {
      throw new Refusal(`${phone} is not a valid mobile number: give it in E.164 (+8613800138000) or in the national form of ${config.defaultPhoneRegion}`);
    }
    throw error;
  });
  if (!changed) throw new Refusal(`no account has the phone number ${phone}; nothing changed`);
  const { user, previous } = changed;
  if (previous === role) return `${user.phone} is ${role} already; nothing changed`;
  return `${user.phone}: ${previous} -> ${role}; takes effect on the account's next request`;
}

function operatorLine(user: UserView): string {
  return `${user.role.padEnd(7)}  ${user.phone}  ${JSON.stringify(user.nickname)}  ${user.id}  member since ${user.createdAt.toISOString()}`;
}

/** A database that predates roles (or this service) is named as such, not as a failed query. */
function unmigrated(error: unknown): never {
  if (error instanceof InvalidFieldNameException) throw new Refusal('the database has no role column yet: run npm run migrate');
  if (error instanceof TableNotFoundException) throw new Refusal('the database has not been migrated: run npm run migrate');
  throw error;
}

main(process.argv.slice(2)).then(
  (output) => process.stdout.write(`${output}\n`),
  (error: unknown) => {
    const usage = error instanceof Refusal && error.message === USAGE;
    process.stderr.write(`${error instanceof Refusal || error instanceof ConfigError || error instanceof PoolModeError ? error.message : String(error)}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
