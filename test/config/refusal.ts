import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

/** The variables and rules a configuration is refused for (a process that is not the Slack bot). */
export function refusal(env: Record<string, string>): [string, string][] {
  try {
    loadConfig(env, { slackBot: false });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => [i.field, i.rule]);
    throw error;
  }
  throw new Error('the configuration was accepted');
}
