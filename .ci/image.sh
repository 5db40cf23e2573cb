#!/usr/bin/env bash
# The container image, proved without a Docker engine: the Dockerfile is linted, docker-compose.yml
# validated, then the Dockerfile itself is replayed in clean temporary directories. Its COPY and
# `RUN npm ...` lines run stage by stage (build context = the working tree's tracked and untracked
# files less .dockerignore; the node@24 devDependency stands in for the node:24 base image), then
# its CMD starts with the environment of docker-compose.yml's `accounts` service (postgres/redis
# pointed at this machine, a fresh database; its pgbouncer stood in for by one started here with the
# same pool settings, when pgbouncer is installed), the operator console is fetched from it, its
# HEALTHCHECK runs, and SIGTERM must end it with 0.
# Needs `npm ci` in the repository first (the checker's tools: dockerfile-utils, dockerfile-ast,
# yaml), PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Redis on 127.0.0.1:6379 (or
# redis-server installed). Prints PASS or FAIL last.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
started=$SECONDS
step() { printf '\n==> %s\n' "$*"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/meeting-accounts-image.XXXXXX")"
chmod 755 "$work" # the service runs as an unprivileged user when this script runs as root
db=""
replay_pid=""
redis_pid=""
redis_port=""
redis_prefix="meeting-accounts-image-check-$$:" # this run's counters, removed at the end
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # The replay runs in a process group of its own (setsid): ending it ends its npm and the service.
  if [ -n "$replay_pid" ]; then kill -KILL -- "-$replay_pid" 2>/dev/null || true; fi
  local pid
  pid="$(cat "$work/service.pid" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  if [ -n "$redis_pid" ]; then
    kill "$redis_pid" 2>/dev/null || true
  elif [ -n "$redis_port" ]; then
    redis-cli -h 127.0.0.1 -p "$redis_port" --scan --pattern "$redis_prefix*" 2>/dev/null |
      xargs -r redis-cli -h 127.0.0.1 -p "$redis_port" del >/dev/null 2>&1 || true
  fi
  if [ -n "$db" ]; then
    psql -h 127.0.0.1 -U postgres -q -c "drop database if exists $db with (force)" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  if [ "$rc" -eq 0 ]; then
    printf '\nPASS: the image builds, installs without dev dependencies, starts, is healthy and stops on SIGTERM (%s s)\n' $((SECONDS - started))
  else
    printf '\nFAIL: image check (exit %s after %s s)\n' "$rc" $((SECONDS - started)) >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x node_modules/.bin/dockerfile-utils ] || [ ! -x node_modules/.bin/node ]; then
  echo "run npm ci in $repo first: the checker uses its dockerfile-utils, dockerfile-ast, yaml and node@24" >&2
  exit 1
fi
orig_path="$PATH"
# The checker's own scripts run on the node@24 devDependency, as `npm run` would.
checker_path="$repo/node_modules/.bin:$PATH"

step "dockerfile-utils lint Dockerfile (any warning fails)"
lint="$(PATH="$checker_path" dockerfile-utils lint Dockerfile 2>&1)" || { printf '%s\n' "$lint"; exit 1; }
if [ -n "$lint" ]; then printf '%s\n' "$lint"; exit 1; fi
echo "no warnings"

step "docker-compose.yml is valid (docker-compose config -q)"
if ! command -v docker-compose >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null) || true
fi
if command -v docker-compose >/dev/null 2>&1; then
  JWT_SECRET=only-for-validating-the-compose-file MFA_ENCRYPTION_KEY=only-for-validating docker-compose -f docker-compose.yml config -q
  echo "valid ($(docker-compose version --short 2>/dev/null || echo docker-compose))"
else
  echo "docker-compose could not be installed; the file is still parsed below"
fi

step "PostgreSQL and Redis on this machine stand in for the compose services"
pg_isready -h 127.0.0.1 -p 5432
db="meeting_accounts_image_$$"
psql -h 127.0.0.1 -U postgres -v ON_ERROR_STOP=1 -q -c "drop database if exists $db with (force)" -c "create database $db"
echo "fresh database $db"
redis_port=6379
if ! redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1; then
  command -v redis-server >/dev/null 2>&1 || { echo "no Redis on 127.0.0.1:6379 and no redis-server to start" >&2; exit 1; }
  redis_port=$((20000 + RANDOM % 20000))
  redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --daemonize no >"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
redis-cli -h 127.0.0.1 -p "$redis_port" ping

# Tracked and untracked (not git-ignored) files, as a build from this working tree would see them.
git ls-files -z --cached --others --exclude-standard >"$work/files"

cat >"$work/replay.mjs" <<'JS'
// Replays the Dockerfile: see the header of .ci/image.sh.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

const { REPO, WORK, ORIG_PATH, LOCAL_DATABASE_URL, LOCAL_REDIS_URL, LOCAL_REDIS_PREFIX } = process.env;
const require = createRequire(path.join(REPO, 'package.json'));
const { DockerfileParser } = require('dockerfile-ast');
const YAML = require('yaml');

const step = (text) => console.log(`\n==> ${text}`);
const say = (text) => console.log(`    ${text}`);
class Failure extends Error {}
const fail = (message) => {
  throw new Failure(message);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const read = (file) => fs.readFileSync(path.join(REPO, file), 'utf8');

let service; // the started CMD, killed on any way out
process.on('exit', () => service?.exitCode === null && service.kill('SIGKILL'));
process.on('uncaughtException', (error) => {
  console.error(error instanceof Failure ? `\n    ${error.message}` : error);
  process.exit(1);
});

// --- build context ---------------------------------------------------------------------------

/** .dockerignore as Docker reads it: paths from the context root, `*` `?` `**` `[...]`, `!` exceptions, last match wins, a matched directory takes its contents. */
function dockerignore(text) {
  const toRegExp = (pattern) => {
    let re = '';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i];
      if (c === '*' && pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else if (c === '\\' && i + 1 < pattern.length) re += `\\${pattern[++i]}`;
      else if (c === '[' && pattern.indexOf(']', i) > i) {
        const end = pattern.indexOf(']', i);
        re += pattern.slice(i, end + 1).replace(/^\[!/, '[^');
        i = end;
      } else re += c.replace(/[.+^${}()|\]]/g, '\\$&');
    }
    return new RegExp(`^${re}$`);
  };
  const rules = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const exception = line.startsWith('!');
      const pattern = path.posix.normalize((exception ? line.slice(1) : line).trim()).replace(/^\/+|\/+$/g, '');
      return { exception, re: toRegExp(pattern) };
    });
  return (file) => {
    const parts = file.split('/');
    let excluded = false;
    for (const rule of rules) {
      for (let i = 1; i <= parts.length; i++) {
        if (rule.re.test(parts.slice(0, i).join('/'))) {
          excluded = !rule.exception;
          break;
        }
      }
    }
    return excluded;
  };
}

step('build context: the working tree less .dockerignore');
const context = path.join(WORK, 'context');
const ignored = dockerignore(fs.existsSync(path.join(REPO, '.dockerignore')) ? read('.dockerignore') : '');
let copied = 0;
for (const file of fs.readFileSync(path.join(WORK, 'files'), 'utf8').split('\0').filter(Boolean)) {
  const from = path.join(REPO, file);
  if (ignored(file) || !fs.existsSync(from)) continue;
  fs.mkdirSync(path.dirname(path.join(context, file)), { recursive: true });
  fs.cpSync(from, path.join(context, file), { verbatimSymlinks: true });
  copied++;
}
say(`${copied} files in ${context}`);
for (const absent of ['node_modules', 'dist', 'data', '.git']) {
  if (fs.existsSync(path.join(context, absent))) fail(`${absent} is in the build context: .dockerignore must exclude it`);
}

// --- the Dockerfile, stage by stage ----------------------------------------------------------

// A stand-in for the base image's node: the repository's node@24 for the first install, then the
// build stage's own node@24 (its node_modules/.bin/node) as soon as it has one.
const standin = path.join(WORK, 'node24', 'bin');
fs.mkdirSync(standin, { recursive: true });
const useNode = (binary) => {
  const target = fs.realpathSync(binary);
  fs.rmSync(path.join(standin, 'node'), { force: true });
  fs.symlinkSync(target, path.join(standin, 'node'));
  const version = spawnSync(target, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith('v24.')) fail(`${target} is ${version}, not Node 24`);
  say(`node for the image's steps (stand-in for node:24-bookworm-slim): ${target} ${version}`);
};
useNode(path.join(REPO, 'node_modules', '.bin', 'node'));

// What a build's RUN sees: this machine's environment without what an outer npm or CI adds.
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(npm_|NODE_ENV$|NODE_OPTIONS$|REPO$|WORK$|LOCAL_|ORIG_PATH$)/i.test(k)),
);
baseEnv.PATH = `${standin}:${ORIG_PATH}`;

const dockerfile = DockerfileParser.parse(read('Dockerfile'));
const stages = [];
let stage;
const onHost = (s, containerPath) => path.join(s.root, containerPath);
for (const instruction of dockerfile.getInstructions()) {
  const keyword = instruction.getKeyword();
  const args = instruction.getArgumentsContent() ?? '';
  const flags = instruction.getFlags?.() ?? [];
  const flag = (name) => flags.find((f) => f.getName() === name)?.getValue() ?? undefined;
  console.log(`\n--- ${[keyword, ...flags.map(String), args].join(' ')}`);
  if (keyword !== 'FROM' && !stage) fail(`${keyword} before FROM`);
  if (['WORKDIR', 'COPY', 'USER'].includes(keyword) && args.includes('$')) fail(`variables in ${keyword} are not replayed by .ci/image.sh`);
  switch (keyword) {
    case 'FROM': {
      const name = instruction.getBuildStage() ?? String(stages.length);
      stage = { name, image: instruction.getImage(), root: path.join(WORK, `stage-${stages.length}-${name}`), workdir: '/', env: {}, user: 'root', notReplayed: [] };
      stages.push(stage);
      fs.mkdirSync(stage.root, { recursive: true });
      if (!/^node:24([.-]|$)/.test(stage.image ?? '')) fail(`stage ${name} is based on ${stage.image}; the stand-in is Node 24 (node:24-*)`);
      say(`stage ${name}: ${stage.root}`);
      break;
    }
    case 'WORKDIR':
      stage.workdir = path.posix.resolve(stage.workdir, args);
      fs.mkdirSync(onHost(stage, stage.workdir), { recursive: true });
      break;
    case 'ENV':
      for (const p of instruction.getProperties()) stage.env[p.getName()] = p.getValue() ?? '';
      break;
    case 'COPY': {
      const from = flag('from');
      const source = from === undefined ? null : stages.find((s) => s.name === from);
      if (from !== undefined && !source) fail(`COPY --from=${from}: no such earlier stage`);
      const words = instruction.getArguments().map((a) => a.getValue());
      if (/^\s*\[/.test(args) || words.length < 2) fail('COPY: only the plain `COPY <src>... <dest>` form is replayed');
      const dest = path.posix.resolve(stage.workdir, words.at(-1));
      const sources = words.slice(0, -1);
      for (const src of sources) {
        if (/[*?[]/.test(src)) fail(`COPY ${src}: wildcards are not replayed by .ci/image.sh`);
        const origin = source ? onHost(source, path.posix.resolve(source.workdir, src)) : path.join(context, path.posix.normalize(src));
        if (!fs.existsSync(origin)) fail(`COPY ${src}: not found in ${source ? `stage ${source.name}` : 'the build context'}`);
        const isDir = fs.statSync(origin).isDirectory();
        const target = isDir || !(sources.length > 1 || words.at(-1).endsWith('/')) ? onHost(stage, dest) : onHost(stage, path.posix.join(dest, path.posix.basename(src)));
        fs.mkdirSync(isDir ? target : path.dirname(target), { recursive: true });
        fs.cpSync(origin, target, { recursive: true, verbatimSymlinks: true });
      }
      if (flag('chown')) say(`(--chown=${flag('chown')} not replayed: files here belong to the user running this script)`);
      break;
    }
    case 'RUN': {
      if (/^\s*\[/.test(args)) fail('RUN: only the shell form is replayed');
      if (flags.length) say(`(${flags.map(String).join(' ')}: not needed outside BuildKit; this machine's npm cache is used)`);
      if (!/^npm\s/.test(args.trim())) {
        say('not replayed: it prepares the image outside the application directory; stood in for when the service starts');
        stage.notReplayed.push(args);
        break;
      }
      const started = Date.now();
      const result = spawnSync('sh', ['-c', args], { cwd: onHost(stage, stage.workdir), env: { ...baseEnv, ...stage.env }, stdio: 'inherit', timeout: 10 * 60_000 });
      if (result.status !== 0) fail(`RUN ${args}: exit ${result.status ?? result.signal ?? result.error?.message}`);
      say(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const ownNode = path.join(onHost(stage, stage.workdir), 'node_modules', '.bin', 'node');
      if (stage === stages[0] && fs.existsSync(ownNode) && fs.realpathSync(path.join(standin, 'node')) !== fs.realpathSync(ownNode)) useNode(ownNode);
      break;
    }
    case 'USER':
      stage.user = args.trim();
      break;
    case 'EXPOSE':
      stage.expose = args.trim();
      break;
    case 'CMD':
      if (!/^\s*\[/.test(args)) fail('CMD must be the exec (JSON) form: with the shell form, sh and not node receives SIGTERM');
      stage.cmd = instruction.getJSONStrings().map((a) => a.getJSONValue());
      break;
    case 'HEALTHCHECK': {
      const match = /^CMD\s+(\[[\s\S]*\])\s*$/.exec(args.trim());
      if (!match) fail('HEALTHCHECK: only `HEALTHCHECK [options] CMD [...]` (exec form) is replayed');
      stage.healthcheck = { argv: JSON.parse(match[1]), timeoutMs: 1000 * Number.parseFloat(flag('timeout') ?? '30') };
      break;
    }
    case 'LABEL':
      break;
    default:
      fail(`${keyword} is not replayed by .ci/image.sh: teach it ${keyword} before the Dockerfile uses it`);
  }
}

// --- what the final stage holds --------------------------------------------------------------

const image = stages.at(-1);
const app = onHost(image, image.workdir);
step(`final stage ${image.name}: ${app}`);
if (!image.cmd?.length) fail('the final stage has no CMD');
if (image.cmd[0] !== 'node') fail(`CMD starts with ${image.cmd[0]}, not node: SIGTERM must reach node directly`);
if (['', 'root', '0'].includes(image.user.split(':')[0])) fail('the final stage runs as root; it needs a USER');
say(`USER ${image.user}, EXPOSE ${image.expose ?? '(none)'}, CMD ${JSON.stringify(image.cmd)}`);
// The lockfile marks every package only the dev dependencies need (`dev: true`); none may be here.
// (Some @types packages are also dependencies of production packages, so are rightly installed.)
const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8'));
const devOnly = Object.entries(lock.packages ?? {}).filter(([at, meta]) => at && meta.dev);
const devPresent = devOnly.map(([at]) => at).filter((at) => fs.existsSync(path.join(app, at)));
if (devPresent.length) fail(`${devPresent.length} dev-only packages in the image, among them ${devPresent.slice(0, 8).join(', ')}`);
for (const name of ['typescript', 'jest', 'node']) {
  if (!devOnly.some(([at]) => at === `node_modules/${name}`)) fail(`${name} is no longer a dev-only package: update this check`);
}
say(`none of the lockfile's ${devOnly.length} dev-only packages is installed (typescript, jest and node@24 among them)`);
const script = image.cmd.slice(1).find((a) => /\.[cm]?js$/.test(a));
if (script && !fs.existsSync(path.join(app, script))) fail(`CMD runs ${script}, which the final stage does not have`);
const built = path.dirname(script ?? 'dist/src/main.js');
const builtFiles = fs.readdirSync(path.join(app, built), { recursive: true }).filter((f) => fs.statSync(path.join(app, built, f)).isFile());
const byExtension = Object.entries(Object.groupBy(builtFiles, (f) => path.extname(f) || '(none)')).map(([ext, list]) => `${list.length} ${ext}`);
say(`${built}: ${byExtension.join(', ')}; besides .js and .map: ${builtFiles.filter((f) => !/\.(js|map)$/.test(f)).join(', ') || 'nothing'}`);

// --- the compose file's environment, pointed at this machine ---------------------------------

step("docker-compose.yml: the accounts service's environment");
const compose = YAML.parse(read('docker-compose.yml'), { merge: true });
const services = compose?.services ?? {};
const accounts = services.accounts ?? fail('docker-compose.yml has no `accounts` service');
const numbered = Object.keys(services).filter((s) => /^accounts-\d+$/.test(s));
if (numbered.length) fail(`numbered copies of the service (${numbered.join(', ')}): one scalable accounts service instead`);
if (!accounts.build) fail('accounts must be built from the Dockerfile (build:)');
if (accounts.container_name || accounts.ports) fail('accounts cannot have container_name or host ports: --scale needs neither');
if (accounts.command || accounts.entrypoint) fail("accounts overrides the image's CMD/ENTRYPOINT: this check runs the Dockerfile's CMD");
const jwtSecret = randomBytes(24).toString('hex');
const SECRET_KEYS = new Set(['JWT_SECRET', 'MFA_ENCRYPTION_KEY']);
const interpolation = { JWT_SECRET: jwtSecret, MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
const interpolate = (value) =>
  String(value).replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name, op, arg, bare) => {
    if (whole === '$$') return '$';
    const key = name ?? bare;
    const set = interpolation[key];
    const present = op?.startsWith(':') ? Boolean(set) : set !== undefined;
    if (op?.endsWith('?') && !present) fail(`${key}: ${arg}`);
    if (op?.endsWith('-') && !present) return arg;
    return set ?? '';
  });
const rawEnv = Array.isArray(accounts.environment)
  ? Object.fromEntries(accounts.environment.map((e) => [e.split('=')[0], e.split('=').slice(1).join('=')]))
  : (accounts.environment ?? {});
const composeEnv = Object.fromEntries(Object.entries(rawEnv).map(([k, v]) => [k, interpolate(v ?? '')]));

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
const env = { PATH: `${standin}:/usr/local/bin:/usr/bin:/bin`, HOME: path.join(WORK, 'home'), ...image.env, ...composeEnv };
fs.mkdirSync(env.HOME, { recursive: true });
const local = {};
const swap = (key, value, why) => {
  local[key] = `${key}: ${SECRET_KEYS.has(key) ? '(set)' : env[key] ?? '(unset)'} -> ${value} (${why})`;
  env[key] = value;
};
const hostOf = (url) => (url ? new URL(url).hostname : undefined);
let poolerStandIn; // stopped at the end, or killed on any way out
if (hostOf(env.DATABASE_URL) === 'pgbouncer') {
  // The replicas behind the compose file's PgBouncer: a pgbouncer here with that service's pool
  // settings stands in for it, in front of this machine's PostgreSQL; migrations go there directly.
  const bouncer = services.pgbouncer ?? fail('DATABASE_URL names pgbouncer, which is not a service of docker-compose.yml');
  if (!/^[\w./-]+:[\w.-]+$/.test(bouncer.image ?? '') || /:latest$/.test(bouncer.image)) fail(`pgbouncer's image ${bouncer.image} is not pinned to a tag`);
  const pooler = Object.fromEntries(Object.entries(bouncer.environment ?? {}).map(([k, v]) => [k, interpolate(v ?? '')]));
  if (hostOf(pooler.DATABASE_URL) !== 'postgres') fail("pgbouncer's DATABASE_URL should name the postgres service");
  if (pooler.POOL_MODE !== 'transaction') fail(`pgbouncer's POOL_MODE is ${pooler.POOL_MODE}, not transaction`);
  if (env.DATABASE_POOL_MODE !== 'transaction') fail('DATABASE_URL names pgbouncer (transaction mode): DATABASE_POOL_MODE must be transaction');
  if (hostOf(env.DATABASE_DIRECT_URL) !== 'postgres') fail('DATABASE_DIRECT_URL should name the postgres service (migrations cannot run through the pooler)');
  const { findPgBouncer, startPgBouncer } = await import(path.join(REPO, 'test/pgbouncer.mjs'));
  if (findPgBouncer()) {
    const settings = {
      pool_mode: pooler.POOL_MODE,
      // The image's default, as its entrypoint writes it.
      ignore_startup_parameters: pooler.IGNORE_STARTUP_PARAMETERS || 'extra_float_digits',
      ...(pooler.DEFAULT_POOL_SIZE ? { default_pool_size: pooler.DEFAULT_POOL_SIZE } : {}),
      ...(pooler.MAX_CLIENT_CONN ? { max_client_conn: pooler.MAX_CLIENT_CONN } : {}),
    };
    poolerStandIn = await startPgBouncer({ target: LOCAL_DATABASE_URL, settings, parent: WORK });
    process.on('exit', () => {
      try {
        process.kill(poolerStandIn.pid);
      } catch {}
    });
    swap('DATABASE_URL', poolerStandIn.url(new URL(LOCAL_DATABASE_URL).pathname.slice(1)), `a pgbouncer here (${Object.entries(settings).map(([k, v]) => `${k} = ${v}`).join(', ')}) in front of this machine's PostgreSQL, a fresh database`);
  } else if (process.env.CI) {
    fail('pgbouncer is not installed: CI must run the image behind it, as docker-compose.yml does (apt-get install -y pgbouncer)');
  } else {
    swap('DATABASE_URL', LOCAL_DATABASE_URL, "this machine's PostgreSQL, a fresh database (pgbouncer is not installed here: transaction mode without the pooler)");
  }
  swap('DATABASE_DIRECT_URL', LOCAL_DATABASE_URL, "this machine's PostgreSQL, the same fresh database");
} else {
  if (hostOf(env.DATABASE_URL) !== 'postgres') fail('DATABASE_URL should name the postgres service, or the pgbouncer in front of it');
  swap('DATABASE_URL', LOCAL_DATABASE_URL, "this machine's PostgreSQL, a fresh database");
}
if (!env.REDIS_URL || new URL(env.REDIS_URL).hostname !== 'redis') fail('REDIS_URL should name the redis service');
swap('REDIS_URL', LOCAL_REDIS_URL, "this machine's Redis");
swap('REDIS_KEY_PREFIX', LOCAL_REDIS_PREFIX, "this run's counters apart in a shared Redis");
if (!env.DATA_DIR?.startsWith('/')) fail('DATA_DIR should be an absolute path in the container');
swap('DATA_DIR', onHost(image, env.DATA_DIR), 'the image path, inside the final stage');
fs.mkdirSync(env.DATA_DIR, { recursive: true });
swap('PORT', String(await freePort()), 'a free port here; the HEALTHCHECK reads PORT');
for (const [k, v] of Object.entries(env)) {
  if (local[k]) say(local[k]);
  else if (k !== 'PATH' && k !== 'HOME') say(`${k}=${SECRET_KEYS.has(k) ? '(random, not shown)' : v}`);
}
if (env.NODE_ENV !== 'production') fail(`NODE_ENV is ${env.NODE_ENV}, not production`);

// As root, the service runs as nobody (standing in for the image's non-root user): the application
// directory is then read-only to it, as in the image, and only DATA_DIR is its own.
const asUser = [];
if (process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0) {
  asUser.push('setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--');
  fs.chownSync(env.DATA_DIR, 65534, 65534);
  fs.chownSync(env.HOME, 65534, 65534);
  say(`runs as nobody (uid 65534) for USER ${image.user}; the application directory belongs to root`);
}

// --- start, probe, stop ----------------------------------------------------------------------

step(`start the CMD: ${image.cmd.join(' ')} (in ${app})`);
const argv = [...asUser, ...image.cmd];
service = spawn(argv[0], argv.slice(1), { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
fs.writeFileSync(path.join(WORK, 'service.pid'), String(service.pid));
const exited = new Promise((resolve) => service.on('exit', (code, signal) => resolve({ code, signal })));
for (const stream of [service.stdout, service.stderr]) {
  let rest = '';
  stream.setEncoding('utf8').on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) console.log(`    | ${line}`);
  });
}
const base = `http://127.0.0.1:${env.PORT}`;
const startedAt = Date.now();
let last = 'no answer';
for (;;) {
  if (service.exitCode !== null || service.signalCode !== null) fail(`the service exited (${service.exitCode ?? service.signalCode}) before /readyz answered 200`);
  try {
    const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) });
    if (res.status === 200) break;
    last = `HTTP ${res.status}`;
  } catch (error) {
    last = error.cause?.code ?? error.message;
  }
  if (Date.now() - startedAt > 60_000) fail(`/readyz did not answer 200 within 60 s (last: ${last})`);
  await sleep(200);
}
say(`/readyz 200 after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);

// A password sign-in for an unknown phone still compares against a dummy hash in the bcrypt worker,
// the one runtime file tsc copies rather than compiles (dist/src/shared/password/bcrypt.worker.mjs).
const login = await fetch(`${base}/api/v1/auth/login-password`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ phone: '13800138000', password: 'not-the-password-1' }),
  signal: AbortSignal.timeout(15_000),
});
const loginBody = await login.json().catch(() => ({}));
if (login.status !== 401 || loginBody.code !== 'INVALID_CREDENTIALS') fail(`password sign-in for an unknown phone: HTTP ${login.status} ${JSON.stringify(loginBody)}, expected 401 INVALID_CREDENTIALS`);
say('POST /api/v1/auth/login-password, unknown phone: 401 INVALID_CREDENTIALS (the bcrypt worker answered)');

// The operator console, built with Vite in the build stage and copied as dist/console: the final
// stage serves it with the production dependencies alone (none of its build's packages is there).
step('the operator console in the image: GET /console/users/<id> (a deep link) and every file its page names');
const consolePage = await fetch(`${base}/console/users/00000000-0000-4000-8000-000000000000`, { signal: AbortSignal.timeout(10_000) });
const consoleHtml = await consolePage.text();
const consoleCsp = consolePage.headers.get('content-security-policy') ?? '';
if (consolePage.status !== 200 || !consoleHtml.includes('<div id="root">')) fail(`GET /console/users/<id>: HTTP ${consolePage.status}, expected the console's page (is dist/console in the image?)`);
if (!/(^|;)\s*script-src 'self'\s*(;|$)/.test(consoleCsp) || !/(^|;)\s*connect-src 'self'\s*(;|$)/.test(consoleCsp)) fail(`the console's page has no strict CSP: ${consoleCsp || '(none)'}`);
if (consolePage.headers.get('cache-control') !== 'no-cache') fail(`the console's page is cached: ${consolePage.headers.get('cache-control')}`);
const consoleFiles = [...consoleHtml.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
if (consoleFiles.length < 2 || consoleFiles.some((file) => !file.startsWith('/console/assets/'))) fail(`the console's page names ${JSON.stringify(consoleFiles)}, expected files under /console/assets/`);
for (const file of consoleFiles) {
  const res = await fetch(`${base}${file}`, { signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  if (res.status !== 200 || res.headers.get('cache-control') !== 'public, max-age=31536000, immutable') fail(`GET ${file}: HTTP ${res.status}, Cache-Control ${res.headers.get('cache-control')}`);
}
if (!fs.existsSync(path.join(app, 'dist/console/persisted-documents.json'))) fail("the image lacks the console's trusted-documents manifest, dist/console/persisted-documents.json");
say(`the page (CSP ${consoleCsp.split(';').slice(0, 2).join('; ')}; ..., no-cache) and its ${consoleFiles.length} files (immutable), from dist/console; its manifest for GRAPHQL_TRUSTED_DOCUMENTS is beside them`);

// The operators' tool ships in the image (API.md 8.1: `node dist/src/admin.js` in the container): it
// runs from the final stage with the production dependencies alone, beside the running service.
step('the operators\' tool in the image: node dist/src/admin.js list, then grant for an unknown phone');
const tool = (args) => {
  const command = [...asUser, 'node', 'dist/src/admin.js', ...args];
  return spawnSync(command[0], command.slice(1), { cwd: app, env, timeout: 30_000, encoding: 'utf8' });
};
const list = tool(['list']);
if (list.status !== 0 || !/^No operators/.test(list.stdout)) fail(`admin.js list: exit ${list.status ?? list.signal}\n${list.stdout}${list.stderr}`);
say(list.stdout.trim());
const grant = tool(['grant', '+8613800138000', 'ADMIN']);
if (grant.status !== 1 || !/no account has the phone number/.test(grant.stderr)) fail(`admin.js grant for an unknown phone: exit ${grant.status ?? grant.signal}\n${grant.stdout}${grant.stderr}`);
say(`grant for a phone without an account: exit 1, "${grant.stderr.trim()}"`);

const healthcheck = () => {
  const hc = [...asUser, ...image.healthcheck.argv];
  return spawnSync(hc[0], hc.slice(1), { cwd: app, env, timeout: image.healthcheck.timeoutMs, encoding: 'utf8' });
};
if (!image.healthcheck) fail('the final stage has no HEALTHCHECK');
step(`HEALTHCHECK: ${image.healthcheck.argv.join(' ')}`);
const healthy = healthcheck();
if (healthy.status !== 0) fail(`the HEALTHCHECK failed on a ready service: exit ${healthy.status ?? healthy.signal} ${healthy.stderr ?? ''}`);
say('exit 0');

step('SIGTERM: the service must exit 0 within 15 s');
const stopAt = Date.now();
service.kill('SIGTERM');
const end = await Promise.race([exited, sleep(15_000).then(() => null)]);
if (!end) fail('still running 15 s after SIGTERM');
if (end.code !== 0) fail(`exited with ${end.code ?? end.signal} after SIGTERM, not 0`);
say(`exit 0 after ${((Date.now() - stopAt) / 1000).toFixed(1)} s`);

const gone = healthcheck();
if (gone.status === 0) fail('the HEALTHCHECK still passes with the service stopped: it checks nothing');
say(`the HEALTHCHECK fails once the service is gone (exit ${gone.status ?? gone.signal}), as it should`);
if (image.notReplayed.length) say(`RUN lines not replayed (image filesystem only): ${image.notReplayed.join('; ')}`);
await poolerStandIn?.stop();
JS

step "replay the Dockerfile"
REPO="$repo" WORK="$work" ORIG_PATH="$orig_path" \
  LOCAL_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" LOCAL_REDIS_URL="redis://127.0.0.1:$redis_port" LOCAL_REDIS_PREFIX="$redis_prefix" \
  setsid "$repo/node_modules/.bin/node" "$work/replay.mjs" &
replay_pid=$!
wait "$replay_pid" # interruptible, unlike a foreground command: INT/TERM reach the trap at once
replay_pid=""
