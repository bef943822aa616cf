import type { webApi } from '@slack/bolt';
import type { Logger } from '../log.js';

/**
 * How long one answer of usergroups.users.list is reused [5 s]: long enough to absorb a double
 * click (or twenty concurrent ones), short enough that someone removed from an approver group
 * cannot approve any more a few seconds later. Never more than 10 s.
 */
export const GROUP_MEMBERS_CACHE_MS = 5_000;

/**
 * Members of Slack user groups (S…), for APPROVERS and REQUESTERS, looked up fresh on each click
 * but for a few seconds' reuse. Concurrent lookups of one group share one call. A failed lookup is
 * never cached: the next click asks Slack again.
 */
export class SlackUserGroups {
  private readonly answers = new Map<string, { users: string[]; at: number }>();
  private readonly inFlight = new Map<string, Promise<string[]>>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly logger: Logger,
    options: { maxAgeMs?: number; now?: () => number } = {},
  ) {
    this.maxAgeMs = Math.min(options.maxAgeMs ?? GROUP_MEMBERS_CACHE_MS, 10_000);
    this.now = options.now ?? Date.now;
  }

  /** The user ids in a group; throws when Slack cannot say (the policy then refuses: fail closed). */
  async members(groupId: string): Promise<string[]> {
    const answer = this.answers.get(groupId);
    if (answer && this.now() - answer.at < this.maxAgeMs) return answer.users;
    const pending = this.inFlight.get(groupId);
    if (pending) return pending;
    const lookup = this.lookUp(groupId).finally(() => this.inFlight.delete(groupId));
    this.inFlight.set(groupId, lookup);
    return lookup;
  }

  /** The Slack user with this email (users.lookupByEmail), undefined when there is none. */
  async userByEmail(email: string): Promise<string | undefined> {
    try {
      const answer = await this.client.users.lookupByEmail({ email });
      return answer.user?.id;
    } catch (error) {
      if ((error as { data?: { error?: string } }).data?.error === 'users_not_found') return undefined;
      throw error;
    }
  }

  private async lookUp(groupId: string): Promise<string[]> {
    this.answers.delete(groupId);
    const answer = await this.client.usergroups.users.list({ usergroup: groupId });
    const users = answer.users ?? [];
    this.answers.set(groupId, { users, at: this.now() });
    this.logger.debug({ groupId, members: users.length }, 'resolved a Slack user group');
    return users;
  }
}
