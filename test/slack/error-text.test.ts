import { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import {
  ConsoleNotAnsweringError,
  NoControllerError,
  RateBudgetSpentError,
  RateLimitedError,
  ResourceNotFoundError,
  WriteOutcomeUnknownError,
} from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { SlackStepError, slackErrorText } from '../../src/slack/error-text.js';
import { errorSamples, repeatedFragments } from '../helpers/error-samples.js';

describe('slackErrorText', () => {
  const logger = silentLogger();

  it('says each fragment once, for every error as the gateway and the tools raise it', async () => {
    const texts = (await errorSamples()).map(({ name, error }) => ({
      name,
      text: slackErrorText(error, logger),
    }));

    for (const { name, text } of texts) {
      expect({ name, repeated: repeatedFragments(text) }).toEqual({ name, repeated: [] });
    }
    const byName = Object.fromEntries(texts.map(({ name, text }) => [name, text]));
    expect(byName['GatewayUnavailableError (refused)']).toBe(
      ':electric_plug: Controller unreachable: 127.0.0.1:9 refused the connection (ECONNREFUSED). Nothing was changed; try again in a minute.',
    );
    expect(byName['GatewayRejectedError (NoSiteContext)']).toBe(
      ':no_entry: The controller refused: unknown site "lab": the controller has no site by that name (`api.err.NoSiteContext`)',
    );
    expect(byName['GatewayAuthError (401 API key)']).toMatch(
      /^:key: The controller refused the bot's credentials \(HTTP 401\): 192\.168\.1\.1 refused GATEWAY_API_KEY/,
    );
  });

  it('words a missing object as its own sentence, without a second "not found"', () => {
    expect(slackErrorText(new ResourceNotFoundError('network', 'Lab'), logger)).toBe(
      ':mag: Network Lab not found',
    );
  });

  it('says there is no controller at the URL without suggesting to wait', () => {
    const error = new NoControllerError(
      'https://10.0.0.9',
      'no UniFi Network controller at https://10.0.0.9: GET /api/s/default/rest/networkconf answered HTTP 404 with a web page',
    );

    expect(slackErrorText(error, logger)).toBe(
      ':electric_plug: No UniFi Network controller at https://10.0.0.9: GET /api/s/default/rest/networkconf answered HTTP 404 with a web page. Nothing was changed.',
    );
  });
});

describe('slackErrorText for a fleet’s guards', () => {
  const logger = silentLogger();

  it('says the bot’s own cloud budget is spent, not that the controller rate-limits it, and when the next token comes', () => {
    const spent = new RateBudgetSpentError(
      "the bot's budget of cloud requests for this API key is spent (3 a minute, shared by every replica); the next request can go in 6.7 s",
      7,
    );
    expect(slackErrorText(spent, logger)).toBe(
      ":turtle: The bot's budget of cloud requests for this API key is spent (3 a minute, shared by every replica); the next request can go in 6.7 s. Nothing was changed.",
    );
    expect(slackErrorText(new RateLimitedError('too many requests', 5), logger)).toBe(
      ':turtle: The controller is rate-limiting the bot. Retry after 5s.',
    );
  });

  it('names the console whose breaker is open', () => {
    const open = new ConsoleNotAnsweringError(
      'berlin',
      'berlin: not answering since 10:42, retrying in 30s',
      30_000,
    );
    expect(slackErrorText(open, logger)).toContain('berlin: not answering since 10:42, retrying in 30s');
  });
});

describe('slackErrorText for what Slack refuses', () => {
  const logger = silentLogger();
  const refused = (error: string) => new webApi.WebAPIPlatformError({ ok: false, error });

  it('words a refused step by Slack’s code, names the channel once, and says what to do', () => {
    const texts = [
      slackErrorText(new SlackStepError('post_preview', 'C0OPS', refused('not_in_channel')), logger),
      slackErrorText(new SlackStepError('open_form', 'C0OPS', refused('expired_trigger_id')), logger),
      slackErrorText(new SlackStepError('upload_file', 'C0OPS', refused('is_archived')), logger),
    ];

    expect(texts).toEqual([
      ':warning: The change request could not be posted in <#C0OPS>: the bot is not a member of the channel (Slack: `not_in_channel`). Nothing was run and the request was withdrawn; invite the bot there (`/invite @netops`, or the name the app has in your workspace) and try again.',
      ':warning: The form could not be opened: Slack opens a form only within 3 seconds of the command, and that time had passed (Slack: `expired_trigger_id`). Nothing was changed; run the command again.',
      ':warning: The file could not be posted in <#C0OPS>: the channel is archived (Slack: `is_archived`); try again in a minute.',
    ]);
    for (const text of texts) expect(repeatedFragments(text)).toEqual([]);
  });

  it('reads a rate limit the client gave up on, a rate limit it was told to reject, and no answer at all', () => {
    const exhausted = new webApi.WebAPIRequestError(
      new Error('A rate limit was exceeded (url: https://slack.com/api/chat.postMessage, retry-after: 3)'),
    );
    const rejected = new webApi.WebAPIRateLimitedError(7);
    const unreachable = new webApi.WebAPIRequestError(new Error('fetch failed'));

    expect(slackErrorText(exhausted, logger)).toBe(
      ':warning: Slack is rate-limiting the bot (Slack: `ratelimited`, retry after 3s). Nothing was changed; try again in a minute.',
    );
    expect(slackErrorText(rejected, logger)).toBe(
      ':warning: Slack is rate-limiting the bot (Slack: `ratelimited`, retry after 7s). Nothing was changed; try again in a minute.',
    );
    expect(slackErrorText(unreachable, logger)).toBe(
      ':warning: Slack could not be reached. Nothing was changed; try again in a minute.',
    );
  });

  it('says a write that was sent and not answered may have been made, not that nothing changed', () => {
    const error = new WriteOutcomeUnknownError(
      '10.0.0.1 did not answer within 10000 ms after the POST to rest/networkconf was sent: the change may or may not have been made; check the controller before trying again',
    );

    expect(slackErrorText(error, logger)).toBe(
      ':grey_question: 10.0.0.1 did not answer within 10000 ms after the POST to rest/networkconf was sent: the change may or may not have been made; check the controller before trying again.',
    );
  });
});
