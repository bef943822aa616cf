#!/usr/bin/env node
// `npm run test:image`: builds the Dockerfile for real and checks, against running containers, what
// docs/deploying.md promises of the image and of deploy/compose.yaml. Not part of `npm test`: it needs a
// container engine and the base images (node:24-bookworm-slim, postgres:17-bookworm); without them
// it says so and exits 2. On a Debian host without Docker, `container-engine.sh up` (the team's
// shared tools) provides both (NO_COMPOSE=1 checks the image alone and exits 3). Prints one PASS/FAIL line per check and the figures (build time,
// image size, start and stop times); exit 0 only when every check passed.
//
// DOCKER (default /usr/bin/docker when present, else `docker`) and COMPOSE (default `docker
// compose` when the client has it, else `docker-compose`) choose the clients. The image is tagged
// netops-bot (as docs/deploying.md builds it, and the tag deploy/compose.yaml runs).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const UPSTREAM = join(ROOT, 'scripts', 'test-image', 'upstream.mjs');
const IMAGE = 'netops-bot';
/** NO_COMPOSE=1: the image alone (no PostgreSQL image needed); the run then exits 3, not 0. */
const NO_COMPOSE = process.env.NO_COMPOSE === '1';
const BASE_IMAGES = NO_COMPOSE
  ? ['node:24-bookworm-slim']
  : ['node:24-bookworm-slim', 'postgres:17-bookworm'];
/** What the image may weigh; the figure itself is printed and written in docs/performance.md. */
const SIZE_BUDGET_MB = 400;
const RUN = `netops-image-test-${process.pid}`;
const SIGNING_SECRET = 'image-test-signing-secret-0123456789';
const SIM_KEY = 'sim-demo-key-0000';

const DOCKER = process.env.DOCKER ?? (existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker');
const results = [];
const figures = {};
const cleanups = [];

function sh(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 900_000, ...options });
  return {
    code: result.status ?? 1,
    out: (result.stdout ?? '').trim(),
    err: (result.stderr ?? '').trim(),
  };
}
const docker = (...args) => sh(DOCKER, args);
/** `docker …`, or throws with its stderr. */
function dockerOk(...args) {
  const r = docker(...args);
  if (r.code !== 0)
    throw new Error(`docker ${args.slice(0, 3).join(' ')} … failed (${r.code}): ${r.err || r.out}`);
  return r.out;
}
function check(name, ok, detail = '') {
  results.push({ name, ok });
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}  ${name}${detail ? `: ${detail}` : ''}\n`);
}
const seconds = (ms) => Math.round(ms / 100) / 10;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitFor(what, probe, timeoutMs) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await probe()) return Date.now() - started;
    await sleep(1000);
  }
  throw new Error(`${what} did not happen within ${seconds(timeoutMs)} s`);
}

function compose() {
  if (process.env.COMPOSE) return process.env.COMPOSE.split(' ');
  if (docker('compose', 'version').code === 0) return [DOCKER, 'compose'];
  return ['docker-compose', '--compatibility'];
}

// --- 0. An engine and the base images, or say what is missing -------------------------------
function preflight() {
  const engine = docker('version', '--format', '{{.Server.Version}}');
  if (engine.code !== 0) {
    return `no container engine answers to ${DOCKER} (${engine.err.split('\n')[0] || 'not installed'}). Start one (on a Debian host: container-engine.sh up from the shared tools), or set DOCKER.`;
  }
  const missing = BASE_IMAGES.filter((image) => docker('image', 'inspect', image).code !== 0);
  if (missing.length > 0) {
    return `the engine (${engine.out}) has no ${missing.join(', ')}: the build and compose stack start from them, and this test pulls nothing. Pull them, or make stand-ins (container-engine.sh up).`;
  }
  const [composeCommand, ...composeArgs] = compose();
  if (sh(composeCommand, [...composeArgs, 'version']).code !== 0) {
    return `no Compose client (${[composeCommand, ...composeArgs].join(' ')}): install docker-compose or the compose plugin, or set COMPOSE.`;
  }
  figures.engine = engine.out;
  return undefined;
}

// --- 1. Build ---------------------------------------------------------------------------------
function build() {
  const started = Date.now();
  const r = sh(DOCKER, ['build', '-t', IMAGE, ROOT], { env: { ...process.env, DOCKER_BUILDKIT: '1' } });
  figures.build_s = seconds(Date.now() - started);
  check(
    'docker build (BuildKit) from local base images only',
    r.code === 0,
    r.code === 0 ? `${figures.build_s} s` : r.err.slice(-1500),
  );
  if (r.code !== 0) throw new Error('the image did not build');
  const size = Number(dockerOk('image', 'inspect', '-f', '{{.Size}}', IMAGE));
  figures.image_mb = Math.round(size / 1e6);
  check(
    `image size under ${SIZE_BUDGET_MB} MB`,
    figures.image_mb <= SIZE_BUDGET_MB,
    `${figures.image_mb} MB`,
  );
}

// --- 2. What is (not) in the image ------------------------------------------------------------
function contents() {
  const user = dockerOk('image', 'inspect', '-f', '{{.Config.User}}', IMAGE);
  const uid = dockerOk('run', '--rm', IMAGE, 'id', '-u');
  check('runs as the unprivileged node user', user === 'node' && uid !== '0', `USER ${user}, uid ${uid}`);

  // Every package the lockfile installs for development only (devDependencies and what only they need).
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const devOnly = Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && entry.dev === true)
    .map(([path]) => path);
  const script = `
    const fs = require('node:fs');
    const dev = ${JSON.stringify(devOnly)}.filter((path) => fs.existsSync('/app/' + path));
    const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(dir + '/' + e.name) : [dir + '/' + e.name]);
    const dist = walk('/app/dist');
    const maps = dist.filter((f) => f.endsWith('.map'));
    const mapRefs = dist.filter((f) => f.endsWith('.js') && fs.readFileSync(f, 'utf8').includes('sourceMappingURL='));
    const present = (paths) => paths.filter((p) => fs.existsSync(p));
    const app = fs.readdirSync('/app');
    const secrets = walk('/app').filter((f) => !f.startsWith('/app/node_modules/') &&
      /(^|\\/)(\\.env(\\..*)?|kubernetes-secret\\.yaml|.*\\.pem|.*\\.key)$/.test(f));
    console.log(JSON.stringify({ dev, maps: maps.length, mapRefs: mapRefs.length, app, secrets,
      leftovers: present(['/root/.npm', '/tmp/node-compile-cache']),
      sources: present(['/app/src', '/app/test', '/app/bench', '/app/docs', '/app/deploy', '/app/scripts', '/app/tsconfig.json']) }));`;
  const found = JSON.parse(dockerOk('run', '--rm', '--user', 'root', IMAGE, 'node', '-e', script));
  check(
    'no dev dependencies in node_modules',
    found.dev.length === 0,
    found.dev.length === 0
      ? `none of the lockfile's ${devOnly.length} dev-only packages`
      : found.dev.slice(0, 10).join(', '),
  );
  check(
    'no sources, tests, benchmarks, docs or deploy files',
    found.sources.length === 0,
    `/app holds ${found.app.join(' ')}`,
  );
  check(
    'no source maps, nor references to them, in dist/',
    found.maps === 0 && found.mapRefs === 0,
    `${found.maps} maps, ${found.mapRefs} references`,
  );
  check('no env files, Secrets or keys', found.secrets.length === 0, found.secrets.join(', '));
  check('no npm cache or logs, no compile cache', found.leftovers.length === 0, found.leftovers.join(', '));
}

// --- 3. Console one-shot ----------------------------------------------------------------------
function consoleOneShot() {
  const started = Date.now();
  const r = docker('run', '--rm', IMAGE, 'node', 'dist/main.js', 'list_vlans');
  figures.console_one_shot_s = seconds(Date.now() - started);
  check(
    'console one-shot `docker run … node dist/main.js list_vlans` (built-in simulator)',
    r.code === 0 && /vlan/i.test(r.out) && /\b(10|20|30)\b/.test(r.out),
    `exit ${r.code} in ${figures.console_one_shot_s} s${r.code === 0 ? '' : `: ${r.err.slice(-400)}`}`,
  );
}

// --- 4. The bot in HTTP mode, from .env.example, against a fake Slack ---------------------------
async function httpBot() {
  const network = `${RUN}-net`;
  const volume = `${RUN}-data`;
  dockerOk('network', 'create', network);
  cleanups.push(() => docker('network', 'rm', network));
  dockerOk('volume', 'create', volume);
  cleanups.push(() => docker('volume', 'rm', '-f', volume));
  const upstream = `${RUN}-upstream`;
  dockerOk(
    'run',
    '-d',
    '--name',
    upstream,
    '--network',
    network,
    '--network-alias',
    'upstream',
    '-v',
    `${UPSTREAM}:/upstream.mjs:ro`,
    IMAGE,
    'node',
    '/upstream.mjs',
  );
  cleanups.push(() => docker('rm', '-f', upstream));
  const bot = `${RUN}-bot`;
  const started = Date.now();
  // As docs/deploying.md runs it, with the example env file as an admin would pass it (DATA_DIR included).
  dockerOk(
    'run',
    '-d',
    '--name',
    bot,
    '--network',
    network,
    '--stop-timeout',
    '30',
    '-v',
    `${volume}:/data`,
    '--env-file',
    join(ROOT, '.env.example'),
    '-e',
    'SLACK_BOT_TOKEN=xoxb-image-test',
    '-e',
    `SLACK_SIGNING_SECRET=${SIGNING_SECRET}`,
    '-e',
    'SLACK_API_URL=http://upstream:8080/api',
    '-e',
    'GATEWAY_URL=http://upstream:8443',
    '-e',
    `GATEWAY_API_KEY=${SIM_KEY}`,
    IMAGE,
  );
  cleanups.push(() => docker('rm', '-f', bot));
  const healthz = () =>
    docker(
      'exec',
      bot,
      'node',
      '-e',
      "fetch('http://127.0.0.1:3000/healthz').then(async (r) => { console.log(r.status, await r.text()); process.exit(r.ok ? 0 : 1); }, (e) => { console.log(String(e)); process.exit(1); })",
    );
  try {
    figures.http_ready_s = seconds(await waitFor('GET /healthz 200', () => healthz().code === 0, 60_000));
    check(
      'HTTP mode: GET /healthz answers 200 with a fake Slack',
      true,
      `${figures.http_ready_s} s after docker run: ${healthz().out}`,
    );
  } catch (error) {
    check(
      'HTTP mode: GET /healthz answers 200 with a fake Slack',
      false,
      `${error.message}; logs: ${docker('logs', '--tail', '20', bot).err}`,
    );
    return;
  }
  const ls = docker('exec', bot, 'sh', '-c', 'ls -A /data && touch /data/.write-test && echo writable');
  check(
    "/data is the writable volume the bot keeps its journal in (with .env.example's DATA_DIR)",
    ls.code === 0 && ls.out.endsWith('writable') && ls.out.split('\n').length > 1,
    ls.out.replace(/\n/g, ' '),
  );
  try {
    const healthyAfter = await waitFor(
      'health status healthy',
      () => docker('inspect', '-f', '{{.State.Health.Status}}', bot).out === 'healthy',
      120_000,
    );
    figures.healthcheck_healthy_s = seconds(Date.now() - started);
    check(
      "the image's HEALTHCHECK turns healthy",
      true,
      `${figures.healthcheck_healthy_s} s after docker run (waited ${seconds(healthyAfter)} s)`,
    );
  } catch (error) {
    check("the image's HEALTHCHECK turns healthy", false, error.message);
  }
  const stopping = Date.now();
  docker('stop', '-t', '30', bot);
  figures.sigterm_stop_s = seconds(Date.now() - stopping);
  const exit = docker('inspect', '-f', '{{.State.ExitCode}}', bot).out;
  const logs = docker('logs', bot);
  const lines = `${logs.out}\n${logs.err}`
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l).msg);
  check(
    'docker stop (SIGTERM): exit 0 after "stopping" … "stopped", before the 30 s grace',
    exit === '0' && lines.includes('stopping') && lines.at(-1) === 'stopped' && figures.sigterm_stop_s < 25,
    `exit ${exit} in ${figures.sigterm_stop_s} s; last lines: ${lines.slice(-2).join(' | ')}`,
  );
}

// --- 5. deploy/compose.yaml: two replicas on PostgreSQL --------------------------------------
async function composeStack() {
  const [command, ...base] = compose();
  const dir = mkdtempSync(join(tmpdir(), 'netops-image-compose-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  // A copy, so the stack's deploy/.env is a throwaway one and never the admin's.
  cpSync(join(ROOT, 'deploy', 'compose.yaml'), join(dir, 'compose.yaml'));
  writeFileSync(
    join(dir, '.env'),
    [
      'SLACK_BOT_TOKEN=xoxb-image-test',
      `SLACK_SIGNING_SECRET=${SIGNING_SECRET}`,
      'SLACK_API_URL=http://upstream:8080/api',
      'GATEWAY_URL=http://upstream:8443',
      `GATEWAY_API_KEY=${SIM_KEY}`,
      'POSTGRES_PASSWORD=image-test-db-password',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'upstream.yaml'),
    [
      "version: '3.8'",
      'services:',
      '  upstream:',
      `    image: ${IMAGE}`,
      '    command: ["node", "/upstream.mjs"]',
      '    volumes:',
      `      - ${UPSTREAM}:/upstream.mjs:ro`,
      '',
    ].join('\n'),
  );
  const project = RUN;
  const run = (...args) =>
    sh(
      command,
      [...base, '-p', project, '-f', join(dir, 'compose.yaml'), '-f', join(dir, 'upstream.yaml'), ...args],
      { cwd: dir },
    );
  cleanups.push(() => run('down', '-v', '--remove-orphans'));
  const started = Date.now();
  const up = run('up', '-d', '--no-build');
  if (up.code !== 0) {
    check('compose: two bot replicas and PostgreSQL start', false, up.err.slice(-1500));
    return;
  }
  const bots = () =>
    docker(
      'ps',
      '-q',
      '--filter',
      `label=com.docker.compose.project=${project}`,
      '--filter',
      'label=com.docker.compose.service=bot',
    )
      .out.split('\n')
      .filter(Boolean);
  try {
    await waitFor(
      'two healthy bot replicas',
      () => {
        const ids = bots();
        return (
          ids.length === 2 &&
          ids.every((id) => docker('inspect', '-f', '{{.State.Health.Status}}', id).out === 'healthy')
        );
      },
      180_000,
    );
    figures.compose_two_healthy_s = seconds(Date.now() - started);
    check(
      'compose: two bot replicas on PostgreSQL turn healthy',
      true,
      `${figures.compose_two_healthy_s} s after up`,
    );
  } catch (error) {
    const ids = bots();
    check(
      'compose: two bot replicas on PostgreSQL turn healthy',
      false,
      `${error.message}; ${ids.length} running; ${ids[0] ? docker('logs', '--tail', '15', ids[0]).err : run('logs', '--tail', '20').out}`,
    );
    return;
  }
  const pg = docker(
    'ps',
    '-q',
    '--filter',
    `label=com.docker.compose.project=${project}`,
    '--filter',
    'label=com.docker.compose.service=postgres',
  ).out;
  const replicas = docker(
    'exec',
    pg,
    'psql',
    '-U',
    'netops',
    '-d',
    'netops',
    '-tAc',
    'SELECT count(*) FROM netops_replicas',
  );
  check(
    'compose: both replicas hold a lease in the shared database',
    replicas.out === '2',
    `netops_replicas rows: ${replicas.out || replicas.err}`,
  );
  const env = bots().map((id) => docker('exec', id, 'printenv', 'POSTGRES_PASSWORD').out);
  check(
    "compose: POSTGRES_PASSWORD does not reach the bots' environment",
    env.every((v) => v === ''),
    JSON.stringify(env),
  );
}

const problem = preflight();
if (problem) {
  process.stderr.write(`test:image cannot run: ${problem}\n`);
  process.exit(2);
}
try {
  build();
  contents();
  consoleOneShot();
  await httpBot();
  if (NO_COMPOSE) process.stdout.write('SKIP  the compose stack (NO_COMPOSE=1): not a complete run\n');
  else await composeStack();
} catch (error) {
  check('test:image ran to the end', false, error instanceof Error ? error.message : String(error));
} finally {
  for (const cleanup of cleanups.reverse()) cleanup();
}
process.stdout.write(`\nfigures: ${JSON.stringify(figures)}\n`);
const failed = results.filter((r) => !r.ok);
process.stdout.write(`${results.length - failed.length} passed, ${failed.length} failed\n`);
process.exit(failed.length > 0 ? 1 : NO_COMPOSE ? 3 : 0);
