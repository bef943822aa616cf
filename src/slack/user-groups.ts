import type { webApi } from '@slack/bolt';
import NodeCache from 'node-cache';
import type { Logger } from '../log.js';

/**
 * Members of Slack user groups (S…), for APPROVERS and REQUESTERS. Cached for a few minutes:
 * every click checks authorization, and usergroups.users.list is rate-limited.
 */
export class SlackUserGroups {
  private readonly cache: NodeCache;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly logger: Logger,
    ttlSeconds = 300,
  ) {
    this.cache = new NodeCache({ stdTTL: ttlSeconds, useClones: false });
  }

  /** The user ids in a group; throws when Slack cannot say (the policy then refuses: fail closed). */
  async members(groupId: string): Promise<string[]> {
    const cached = this.cache.get<string[]>(groupId);
    if (cached) return cached;
    const answer = await this.client.usergroups.users.list({ usergroup: groupId });
    const users = answer.users ?? [];
    this.cache.set(groupId, users);
    this.logger.debug({ groupId, members: users.length }, 'resolved a Slack user group');
    return users;
  }
}
