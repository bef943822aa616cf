import { webApi } from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createSlackFrontEnd } from './slack-app.js';
import { slackClientOptions } from './slack-client.js';
import { SlackUserGroups } from './user-groups.js';

/**
 * The parts of the Slack front end that load Slack's SDK, in one module so that only a Slack run
 * loads it: `main.ts` imports this when SLACK_BOT_TOKEN is set and hands it to `createApp`. The SDK
 * takes about half a second to load, which a console one-shot should not pay.
 */
export const slackKit = {
  createSlackFrontEnd,
  /** The user-group lookup behind APPROVERS and REQUESTERS given as groups (S…). */
  userGroups: (config: Config, logger: Logger, now?: () => number) =>
    new SlackUserGroups(
      new webApi.WebClient(config.slack.botToken, slackClientOptions(config, logger)),
      logger,
      now ? { now } : {},
    ),
};

/** What `createApp` needs to build the Slack front end. */
export type SlackKit = typeof slackKit;
