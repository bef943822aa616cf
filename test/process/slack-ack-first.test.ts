import { afterAll, describe, expect, it } from 'vitest';
import { slackHttpEnv, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { startFakeSlack } from '../helpers/fake-slack.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';

const SECRET = 'process-ack-first-secret';

afterAll(async () => {
  await stopAllBots();
});

describe('the built program acks before anything else', () => {
  it('acks a command with an empty 200 while auth.test hangs, and answers it once Slack confirms the token', async () => {
    const slack = await startFakeSlack();
    // The first auth.test fails; the retry (after 1 s) and the command's authorize then hang 4 s,
    // longer than Bolt's 3 s ack timeout: a bot that acks after authorize leaves Slack a 404 here.
    slack.authTestError = 'service_unavailable';
    try {
      const bot = spawnBot(slackHttpEnv(slack, SECRET));
      const listening = await bot.waitForLog((l) => l.msg.startsWith('listening on port'));
      await bot.waitForLog((l) => l.msg.startsWith('could not reach Slack to verify SLACK_BOT_TOKEN'));
      slack.delays['auth.test'] = 4000;
      slack.authTestError = undefined;
      const responseUrl = slack.responseUrl();
      const body = commandBody({ text: 'help', response_url: responseUrl });
      const ack = await fetch(`http://127.0.0.1:${String(listening.port)}/slack/events`, {
        method: 'POST',
        headers: slackHeaders(SECRET, body),
        body,
      });
      expect({ status: ack.status, text: await ack.text() }).toEqual({ status: 200, text: '' });
      expect(slack.responses.some((r) => responseUrl.endsWith(r.path))).toBe(false);
      await slack.waitFor(() => slack.responses.some((r) => responseUrl.endsWith(r.path)), 15_000);
      expect((await bot.stop('SIGTERM')).code).toBe(0);
    } finally {
      await slack.close();
    }
  });
});
