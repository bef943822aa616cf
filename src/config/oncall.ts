import { z } from 'zod';
import { blankToUndefined, httpUrl } from './fields.js';

// PagerDuty, for policy rules whose approvers name an on-call schedule (`oncall:<schedule id>`).
export const onCallShape = {
  PAGERDUTY_TOKEN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .min(16, { message: 'must be a PagerDuty REST API key (at least 16 characters)' })
      .optional(),
  ),
  PAGERDUTY_API_URL: httpUrl,
};

type OnCallEnv = z.output<z.ZodObject<typeof onCallShape>>;

export function onCallRules(env: OnCallEnv, issue: (path: string, message: string) => void): void {
  if (env.PAGERDUTY_API_URL && !env.PAGERDUTY_TOKEN)
    issue('PAGERDUTY_TOKEN', 'is required with PAGERDUTY_API_URL');
}

/** PagerDuty's API and key; absent when no rule can name an on-call schedule. */
export function onCallConfig(e: OnCallEnv) {
  if (!e.PAGERDUTY_TOKEN) return undefined;
  /** The key is a secret: never log it. */
  return { token: e.PAGERDUTY_TOKEN, apiUrl: e.PAGERDUTY_API_URL ?? 'https://api.pagerduty.com' };
}
