import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { REFUSED_TOKEN_ERRORS, SlackTokenCheck } from '../../../src/slack/transport/token-check.js';
import { captureLogger } from '../../helpers/capture-logger.js';
import { type FakeSlack, startFakeSlack } from '../../helpers/fake-slack.js';
import { closedPort } from '../../helpers/ports.js';
import { type SlackBot, startSlackBot } from '../../helpers/slack-bot.js';

const opened: { close(): Promise<void> }[] = [];
const checks: SlackTokenCheck[] = [];

afterEach(async () => {
  for (const check of checks.splice(0)) check.stop();
  for (const thing of opened.splice(0)) await thing.close();
});

async function fakeSlack(): Promise<FakeSlack> {
  const slack = await startFakeSlack();
  opened.push(slack);
  return slack;
}

function tokenCheck(apiUrl: string, delaysMs: number[] = [5, 10, 20]) {
  const { lines, logger } = captureLogger('debug');
  const client = new webApi.WebClient('xoxb-under-test', {
    slackApiUrl: `${apiUrl}/`,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const check = new SlackTokenCheck(client, 'xoxb-under-test', logger, delaysMs);
  checks.push(check);
  return { check, lines };
}

describe('SlackTokenCheck: auth.test at start', () => {
  it('turns a refused token into a ConfigError naming SLACK_BOT_TOKEN and the code, after one call', async () => {
    const slack = await fakeSlack();
    for (const code of ['invalid_auth', 'token_revoked', 'account_inactive', 'not_authed']) {
      expect(REFUSED_TOKEN_ERRORS.has(code)).toBe(true);
      slack.authTestError = code;
      const { check } = tokenCheck(slack.apiUrl);
      const before = slack.callsOf('auth.test').length;

      const error = await check.untilVerified().catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toEqual([
        { field: 'SLACK_BOT_TOKEN', rule: expect.stringContaining(`was refused by Slack (${code})`) },
      ]);
      expect(check.refused).toBe(code);
      expect(check.verified).toBe(false);
      expect(slack.callsOf('auth.test').length - before).toBe(1);
    }
  });

  it('retries with backoff while Slack fails, logging each attempt, and resolves once it answers', async () => {
    const slack = await fakeSlack();
    slack.authTestError = 'service_unavailable';
    const { check, lines } = tokenCheck(slack.apiUrl);
    const verified = check.untilVerified();
    await check.firstAnswer();
    expect(check.verified).toBe(false);
    await slack.waitFor(() => slack.callsOf('auth.test').length >= 3);

    slack.authTestError = undefined;
    await verified;

    expect(check.verified).toBe(true);
    const retries = lines().filter((l) =>
      String(l.msg).startsWith('could not reach Slack to verify SLACK_BOT_TOKEN'),
    );
    expect(retries.length).toBeGreaterThanOrEqual(3);
    expect(retries.slice(0, 3).map((l) => l.retry_in_ms)).toEqual([5, 10, 20]);
    expect(lines().filter((l) => l.msg === 'SLACK_BOT_TOKEN verified (auth.test)')).toHaveLength(1);
    expect(JSON.stringify(lines())).not.toContain('xoxb-under-test');
  });

  it('keeps retrying an unreachable Slack at the last delay, and stops when told', async () => {
    const unreachable = await closedPort();
    opened.push({ close: unreachable.release });
    const { check, lines } = tokenCheck(`${unreachable.url}/api`, [1, 2]);
    const retries = () => lines().filter((l) => String(l.msg).startsWith('could not reach Slack'));
    let settled = false;
    void check.untilVerified().finally(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 300));

    expect(settled).toBe(false);
    expect(check.verified).toBe(false);
    expect(retries().length).toBeGreaterThanOrEqual(4);
    expect(retries().map((l) => l.retry_in_ms)).toEqual([
      1,
      ...retries()
        .slice(1)
        .map(() => 2),
    ]);
    check.stop();
    const stoppedAt = retries().length;
    await new Promise((r) => setTimeout(r, 100));
    expect(retries().length).toBeLessThanOrEqual(stoppedAt + 1);
  });

  it('serves Bolt’s authorize from the verified answer, asking Slack only once', async () => {
    const slack = await fakeSlack();
    const { check } = tokenCheck(slack.apiUrl);

    const answers = await Promise.all([check.authorize(), check.authorize(), check.untilVerified()]);
    await check.authorize();

    expect(answers[0]).toEqual({ botToken: 'xoxb-under-test', botId: 'BBOT', botUserId: 'UBOT' });
    expect(slack.callsOf('auth.test')).toHaveLength(1);
  });
});

describe('the Slack front end while Slack has not answered auth.test', () => {
  const bots: SlackBot[] = [];
  afterEach(async () => {
    for (const b of bots.splice(0)) await b.close();
  });

  it('answers /healthz 503 "not ready: waiting for Slack", then 200 once Slack answers', async () => {
    const b = await startSlackBot({ authTestError: 'service_unavailable' });
    bots.push(b);
    const health = async () => {
      const response = await fetch(`http://127.0.0.1:${b.port}/healthz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    const waiting = await health();
    b.slack.authTestError = undefined;
    await b.ready;
    const ready = await health();

    expect(waiting.status).toBe(503);
    expect(waiting.body).toMatchObject({
      status: 'unavailable',
      slack: { ok: false, error: 'not ready: waiting for Slack' },
      store: { ok: true },
    });
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', slack: { ok: true } });
  });

  it('rejects `ready` with the refusal, and says so on /healthz', async () => {
    const b = await startSlackBot({ authTestError: 'token_revoked' });
    bots.push(b);

    await expect(b.ready).rejects.toThrow(/SLACK_BOT_TOKEN: was refused by Slack \(token_revoked\)/);
    const response = await fetch(`http://127.0.0.1:${b.port}/healthz`);

    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      slack: { ok: false, error: expect.stringContaining('token_revoked') },
    });
  });
});
