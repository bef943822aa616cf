import { type Logger as BoltLogger, LogLevel, type webApi } from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';

/**
 * Web API options: Slack's own URL unless SLACK_API_URL points elsewhere (tests use a fake), and
 * the client's own warnings (retries) in the bot's log rather than as plain lines on stderr.
 */
export function slackClientOptions(config: Config, logger?: Logger): webApi.WebClientOptions {
  return {
    ...(config.slack.apiUrl ? { slackApiUrl: `${config.slack.apiUrl}/` } : {}),
    ...(logger ? { logger: boltLogger(logger) } : {}),
    // A preview that cannot be posted should fail in seconds, not retry silently for 30 minutes.
    retryConfig: { retries: 2, maxRetryTime: 10_000 },
  };
}

/** Bolt's and the Web API client's log lines, as the bot's own. */
export function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'bolt' });
  const text = (parts: unknown[]) =>
    parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
  return {
    debug: (...parts: unknown[]) => log.debug(text(parts)),
    info: (...parts: unknown[]) => log.info(text(parts)),
    warn: (...parts: unknown[]) => log.warn(text(parts)),
    error: (...parts: unknown[]) => log.error(text(parts)),
    setLevel: () => {},
    getLevel: () => LogLevel.INFO,
    setName: () => {},
  };
}
