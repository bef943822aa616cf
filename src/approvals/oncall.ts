import { z } from 'zod';
import type { Logger } from '../log.js';

/** An approver entry that names an on-call schedule (`oncall:<PagerDuty schedule id>`). */
export const ONCALL_PREFIX = 'oncall:';

export const isOnCall = (id: string): boolean => id.startsWith(ONCALL_PREFIX);

/**
 * How long one answer about who is on call is reused [60 s]: a page of clicks costs one lookup, and
 * a hand-over is seen within a minute. A failed lookup is never reused.
 */
export const ONCALL_CACHE_MS = 60_000;

const oncallsSchema = z.object({
  oncalls: z.array(z.object({ user: z.object({ id: z.string() }) })),
});
const userSchema = z.object({ user: z.object({ email: z.string() }) });

export interface OnCallOptions {
  /** PagerDuty's REST API (PAGERDUTY_API_URL; https://api.pagerduty.com). */
  apiUrl: string;
  /** A read-only REST API key (PAGERDUTY_TOKEN): a secret, never logged. */
  token: string;
  /** The Slack user with this email (users.lookupByEmail), if there is one. */
  slackUserByEmail: (email: string) => Promise<string | undefined>;
  logger: Logger;
  now?: () => number;
  timeoutMs?: number;
}

/**
 * Who is on call now in a PagerDuty schedule, as Slack user ids: the schedule's current on-calls,
 * each PagerDuty user's email, and the Slack user with that email. Throws when any of it cannot be
 * read, so the approval is refused and says so (fail closed).
 */
export class PagerDutyOnCall {
  private readonly answers = new Map<string, { users: string[]; at: number }>();

  constructor(private readonly options: OnCallOptions) {}

  async members(scheduleId: string): Promise<string[]> {
    const now = (this.options.now ?? Date.now)();
    const kept = this.answers.get(scheduleId);
    if (kept && now - kept.at < ONCALL_CACHE_MS) return kept.users;
    this.answers.delete(scheduleId);
    const query = new URLSearchParams({ 'schedule_ids[]': scheduleId, earliest: 'true' });
    const oncalls = oncallsSchema.parse(await this.get(`/oncalls?${query.toString()}`));
    const users: string[] = [];
    for (const id of [...new Set(oncalls.oncalls.map((o) => o.user.id))]) {
      const { user } = userSchema.parse(await this.get(`/users/${encodeURIComponent(id)}`));
      const slack = await this.options.slackUserByEmail(user.email);
      if (slack) users.push(slack);
      else
        this.options.logger.warn(
          { scheduleId, pagerdutyUser: id },
          'an on-call person has no Slack user with their email',
        );
    }
    this.answers.set(scheduleId, { users, at: now });
    return users;
  }

  private async get(path: string): Promise<unknown> {
    const response = await fetch(`${this.options.apiUrl.replace(/\/+$/, '')}${path}`, {
      headers: {
        Authorization: `Token token=${this.options.token}`,
        Accept: 'application/vnd.pagerduty+json;version=2',
      },
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
    });
    if (!response.ok) throw new Error(`PagerDuty answered ${response.status} to ${path.split('?')[0]}`);
    return response.json();
  }
}
