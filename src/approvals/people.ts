import { mrkdwn } from '../lib/slack-escape.js';
import type { Logger } from '../log.js';
import { isMcpRequester, personOf, requesterIdsOf } from './mcp-requester.js';
import { isOnCall, ONCALL_PREFIX } from './oncall.js';
import type { Actor, ChangeRequest } from './types.js';

/** An answer about a person; a refusal says what is missing, in words the clicker can act on. */
export type Decision = { ok: true } | { ok: false; reason: string };

/** Everything these answers are built from: the approval variables of DESIGN §3, and a group resolver. */
export interface ApprovalPeopleOptions {
  /** APPROVERS: user ids (U…/W…) and user-group ids (S…); empty = anyone but the requester. */
  approvers: string[];
  allowSelfApproval: boolean;
  /** REQUESTERS: who may propose writes; empty = anyone. */
  requesters: string[];
  /** WRITE_CHANNELS: where writes may be proposed; empty = anywhere. */
  writeChannels: string[];
  /** Members of a user group (Slack usergroups.users.list); caching is the resolver's business. */
  groupMembers: (groupId: string) => Promise<string[]>;
  /** Who is on call in a schedule (`oncall:<id>`), as Slack user ids; unset: no schedule can be read. */
  onCallMembers?: (scheduleId: string) => Promise<string[]>;
  logger: Logger;
}

const isGroup = (id: string) => id.startsWith('S');

/**
 * A Slack mention of a user, group or channel id, so refusals render as names. Refusals are Slack
 * markup (the front end does not escape them again), so anything not shaped like an id (a channel
 * from a payload, an MCP requester) is shown as text, escaped by the same rules as every Slack text.
 */
function mention(id: string): string {
  if (isOnCall(id)) return `whoever is on call in ${mrkdwn(id.slice(ONCALL_PREFIX.length))}`;
  if (!/^[A-Z0-9]+$/.test(id)) return mrkdwn(id);
  if (isGroup(id)) return `<!subteam^${id}>`;
  if (/^[CGD]/.test(id)) return `<#${id}>`;
  // An MCP requester (mcp:<label>) is no Slack user: its id as it is.
  return /^[UW][A-Z0-9]+$/.test(id) ? `<@${id}>` : id;
}

const mentions = (ids: readonly string[]) => ids.map(mention).join(', ');

type Membership = { member: true } | { member: false; unresolved: string[] };

/** Who may propose, approve and cancel change requests. Checked on every click, never cached per request. */
export class ApprovalPeople {
  constructor(private readonly options: ApprovalPeopleOptions) {}

  /**
   * REQUESTERS and WRITE_CHANNELS, when set; a request from no channel fails a WRITE_CHANNELS rule.
   * REQUESTERS lists Slack users: an MCP client holds a token (or runs on the host) instead.
   */
  async canRequest(user: Actor, channel: string | undefined): Promise<Decision> {
    const { requesters, writeChannels } = this.options;
    if (requesters.length > 0 && !isMcpRequester(user)) {
      const membership = await this.membership(user.userId, requesters);
      if (!membership.member)
        return { ok: false, reason: this.notListed('REQUESTERS', requesters, 'request changes', membership) };
    }
    if (writeChannels.length > 0 && (channel === undefined || !writeChannels.includes(channel))) {
      const here = channel === undefined ? 'this request came from no channel' : `not in ${mention(channel)}`;
      return {
        ok: false,
        reason: `changes may only be requested in WRITE_CHANNELS (${mentions(writeChannels)}); ${here}`,
      };
    }
    return { ok: true };
  }

  /** Not the requester unless ALLOW_SELF_APPROVAL; a member of APPROVERS when it is set. */
  async canApprove(request: ChangeRequest, user: Actor): Promise<Decision> {
    if (this.isOwnRequest(request, user)) {
      const yours = isMcpRequester(request.requester) ? 'your MCP client requested' : 'you requested';
      return {
        ok: false,
        reason: `${yours} this change; someone else must approve it (ALLOW_SELF_APPROVAL is off)`,
      };
    }
    return this.approverStanding(user);
  }

  /**
   * Which requests `user` may approve, decided once for many requests (App Home lists them): the
   * same two rules as canApprove, with APPROVERS membership looked up once.
   */
  async approvableBy(user: Actor): Promise<(request: ChangeRequest) => boolean> {
    const standing = await this.approverStanding(user);
    return (request) => standing.ok && !this.isOwnRequest(request, user);
  }

  /**
   * `approvableBy` as a store filter for pending requests: undefined when the user may
   * approve none, else the requester ids whose requests they may not approve (their own).
   */
  async approvableFilter(user: Actor): Promise<{ notRequestedBy: string[] } | undefined> {
    const standing = await this.approverStanding(user);
    if (!standing.ok) return undefined;
    return { notRequestedBy: this.options.allowSelfApproval ? [] : requesterIdsOf(user.userId) };
  }

  /** The requester, or the person behind the MCP client that requested it (its token's label). */
  private isOwnRequest(request: ChangeRequest, user: Actor): boolean {
    return user.userId === personOf(request.requester) && !this.options.allowSelfApproval;
  }

  /** ALLOW_SELF_APPROVAL: a requester may approve their own change (when it needs one approval). */
  get allowSelfApproval(): boolean {
    return this.options.allowSelfApproval;
  }

  /** APPROVERS as configured (user and group ids; empty: anyone but the requester). */
  get approvers(): readonly string[] {
    return this.options.approvers;
  }

  /** A member of APPROVERS, or anyone when it is unset. */
  async approverStanding(user: Actor): Promise<Decision> {
    const { approvers } = this.options;
    if (approvers.length === 0) return { ok: true };
    const membership = await this.membership(user.userId, approvers);
    if (membership.member) return { ok: true };
    return { ok: false, reason: this.notListed('APPROVERS', approvers, 'approve', membership) };
  }

  /**
   * A policy rule's `approvers` (user and user-group ids): the user must be listed or a
   * member of a listed group; a group that cannot be read counts as "no" (fail closed).
   */
  async canApproveAs(
    user: Actor,
    ids: readonly string[],
    source: string,
    what = 'approve this change',
  ): Promise<Decision> {
    const membership = await this.membership(user.userId, [...ids]);
    if (membership.member) return { ok: true };
    return { ok: false, reason: this.notListed(source, [...ids], what, membership) };
  }

  /** Whether the user is the requester (or the person behind the requesting MCP client). */
  isRequester(request: ChangeRequest, user: Actor): boolean {
    return user.userId === personOf(request.requester);
  }

  /** The requester, or anyone allowed to approve it. */
  async canCancel(request: ChangeRequest, user: Actor): Promise<Decision> {
    if (user.userId === personOf(request.requester)) return { ok: true };
    const approve = await this.canApprove(request, user);
    if (approve.ok) return approve;
    return {
      ok: false,
      reason: `only the requester (${mention(personOf(request.requester))}) or someone who may approve can cancel it: ${approve.reason}`,
    };
  }

  private notListed(variable: string, ids: string[], what: string, membership: Membership): string {
    const base = `only ${/^[A-Z_]+$/.test(variable) ? `members of ${variable}` : variable} (${mentions(ids)}) may ${what}`;
    if (membership.member || membership.unresolved.length === 0) return base;
    // Fail closed: a group we could not read might have listed the user, but we cannot tell.
    return `${base}; membership of ${mentions(membership.unresolved)} could not be checked right now, try again later`;
  }

  /** A group's members, or who is on call in a schedule; throws when that cannot be read. */
  private membersOf(id: string): Promise<string[]> {
    if (!isOnCall(id)) return this.options.groupMembers(id);
    const schedule = id.slice(ONCALL_PREFIX.length);
    if (!this.options.onCallMembers) {
      return Promise.reject(
        new Error(`on-call schedule ${schedule} cannot be read: PAGERDUTY_TOKEN is not set`),
      );
    }
    return this.options.onCallMembers(schedule);
  }

  /** Listed directly, or a member of a listed group; groups that cannot be read count as "no". */
  private async membership(userId: string, ids: string[]): Promise<Membership> {
    // A group id is never a user: only user entries match directly (a user id S… is refused).
    if (!isGroup(userId) && ids.includes(userId)) return { member: true };
    const groups = ids.filter((id) => isGroup(id) || isOnCall(id));
    const answers = await Promise.allSettled(groups.map((group) => this.membersOf(group)));
    const unresolved: string[] = [];
    for (const [index, answer] of answers.entries()) {
      const group = groups[index] ?? '?';
      if (answer.status === 'fulfilled') {
        if (answer.value.includes(userId)) return { member: true };
      } else {
        unresolved.push(group);
        this.options.logger.error(
          { err: answer.reason, group },
          'could not resolve user-group members; treating the user as not a member',
        );
      }
    }
    return { member: false, unresolved };
  }
}
