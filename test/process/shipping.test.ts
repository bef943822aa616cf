import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MAIN, ROOT, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { startFakeSlack } from '../helpers/fake-slack.js';
import { readDockerfile, readManifest } from '../helpers/shipped-files.js';
import { slackHeaders } from '../helpers/slack-requests.js';

const docker = readDockerfile();
const manifest = readManifest();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};
const manifestText = readFileSync(join(ROOT, 'manifest.yml'), 'utf8');
// The Slack guide documents the manifest's request URLs for HTTP mode.
const slackGuide = readFileSync(join(ROOT, 'docs', 'slack.md'), 'utf8');

/** Runs the Dockerfile's HEALTHCHECK command with PORT set; its exit code. */
function healthcheck(port: number): number | null {
  const [command, ...args] = docker.healthcheck;
  expect(command).toBe('node');
  return spawnSync(process.execPath, args, { cwd: ROOT, env: { PORT: String(port) }, timeout: 10_000 })
    .status;
}

afterAll(stopAllBots);

describe('the Dockerfile, package.json and manifest.yml agree with what the entry point serves', () => {
  it('runs one program: the Dockerfile CMD, `npm start` and the netops bin all name dist/main.js', () => {
    expect(docker.cmd).toEqual(['node', 'dist/main.js']);
    expect(pkg.scripts.start).toBe('node dist/main.js');
    expect(pkg.bin.netops).toBe('dist/main.js');
    expect(readFileSync(MAIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(MAIN).mode & 0o111).not.toBe(0);
  });

  it('builds every /app/dist module the stand-ins of the image test import (the bundle keeps their paths)', () => {
    const upstream = readFileSync(join(ROOT, 'scripts', 'test-image', 'upstream.mjs'), 'utf8');
    const imported = [...upstream.matchAll(/from '\/app\/(dist\/[^']+)'/g)].map((m) => m[1] ?? '');
    expect(imported).toContain('dist/simulator/index.js');
    for (const path of imported) expect(existsSync(join(ROOT, path)), path).toBe(true);
  });

  it('copies into the build stage everything `npm run build` reads', () => {
    expect(docker.runs.build).toContain('npm run build');
    const copied = docker.copies.build ?? [];
    for (const needed of ['src', 'tsconfig.json', 'package.json', 'scripts/bundle.mjs']) {
      expect(
        copied.some((path) => path.replace(/^\.\//, '').replace(/\/$/, '') === needed),
        needed,
      ).toBe(true);
    }
    for (const script of pkg.scripts.build?.match(/scripts\/[\w.-]+/g) ?? []) {
      expect(copied, script).toContain(script);
    }
  });

  it("publishes the bot's default PORT, and the HEALTHCHECK asks /healthz on PORT", () => {
    const defaultPort = String(loadConfig({}).slack.port);
    expect(docker.env.PORT).toBe(defaultPort);
    expect(docker.expose).toEqual([defaultPort]);
    const script = docker.healthcheck.join(' ');
    expect(script).toContain('/healthz');
    expect(script).toContain(`process.env.PORT || ${defaultPort}`);
  });

  it('documents one request URL path, /slack/events, and declares the one command, /net', () => {
    expect(manifest.features.slash_commands.map((c) => c.command)).toEqual(['/net']);
    const declared = [
      ...manifest.features.slash_commands.map((c) => c.url),
      manifest.settings.interactivity.request_url,
      manifest.settings.event_subscriptions?.request_url,
    ].filter((url): url is string => Boolean(url));
    for (const url of declared) expect(new URL(url).pathname).toBe('/slack/events');
    const documented = [...`${manifestText}\n${slackGuide}`.matchAll(/https:\/\/<[\w-]+>(\/[\w/]*)/g)].map(
      (m) => m[1],
    );
    expect(documented.length).toBeGreaterThan(0);
    expect(new Set(documented)).toEqual(new Set(['/slack/events']));
  });

  it("starts from the Dockerfile's CMD and ENV, serves the manifest's /net on /slack/events, and passes its HEALTHCHECK", async () => {
    const slack = await startFakeSlack();
    try {
      const [node, ...args] = docker.cmd;
      expect(node).toBe('node');
      const bot = spawnBot(
        {
          // The image's ENV, but a fresh DATA_DIR here instead of its /data volume.
          ...Object.fromEntries(Object.entries(docker.env).filter(([name]) => name !== 'DATA_DIR')),
          PORT: '0',
          SLACK_BOT_TOKEN: 'xoxb-process-test',
          SLACK_SIGNING_SECRET: 'docker-test-signing-secret',
          SLACK_API_URL: slack.apiUrl,
        },
        { command: [process.execPath, ...args] },
      );
      const port = await bot.listeningPort();
      expect(healthcheck(port)).toBe(0);

      const responseUrl = slack.responseUrl();
      const body = new URLSearchParams({
        command: manifest.features.slash_commands[0]?.command ?? '',
        text: 'help',
        user_id: 'U1',
        channel_id: 'C1',
        team_id: 'T1',
        response_url: responseUrl,
        trigger_id: 't',
      }).toString();
      const answer = await fetch(`http://127.0.0.1:${port}/slack/events`, {
        method: 'POST',
        headers: slackHeaders('docker-test-signing-secret', body),
        body,
      });
      expect(answer.status).toBe(200);
      await slack.waitFor(() => slack.responses.some((r) => responseUrl.endsWith(r.path)), 10_000);

      expect(await bot.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(healthcheck(port)).toBe(1);
    } finally {
      await slack.close();
    }
  });
});
