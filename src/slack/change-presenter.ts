import type { webApi } from '@slack/bolt';
import type { Approvals } from '../approvals/approvals.js';
import type {
  ApproveOutcome,
  CancelOutcome,
  ChangeRequest,
  ChangeState,
  MessageRef,
} from '../approvals/types.js';
import type { Logger } from '../log.js';
import { SETTLED_STATES } from '../model/change-request.js';
import { breakGlassMessage } from './blocks/break-glass.js';
import {
  auditLine,
  changeRequestMessage,
  previewAttachment,
  resultThreadMessage,
} from './blocks/change-request.js';
import type { SlackMessage } from './blocks/read-result.js';
import { actorText, code, codeBlock, link, mrkdwn, mrkdwnSection, slackDate } from './blocks/text.js';
import { SlackStepError, slackProblem, slackRefused, slackRefusedContent } from './error-text.js';
import { refreshStaleMessages } from './stale-messages.js';

/** How long a request from an MCP client is left to its own process to post before a sweep posts it. */
export const ANNOUNCE_GRACE_MS = 3_000;

/** Sends a message only the clicker sees (the click's response_url, or chat.postEphemeral). */
export type Whisper = (text: string) => Promise<void>;

/** Where a state sits in the lifecycle: a message never goes back to an earlier one. */
function stage(state: ChangeState): number {
  if (state === 'pending') return 0;
  if (state === 'approved' || state === 'executing' || state === 'scheduled') return 1;
  return 2;
}

// How long an edit or a thread result Slack keeps refusing is tried again, at every sweep.
const OWED_FOR_MS = 24 * 3_600_000;

// Messages whose last shown stage is remembered; older entries are forgotten first.
const TRACKED_MESSAGES = 1000;

/** What the presenter remembers of one request's message: the stage shown, and its queue of edits. */
interface MessageEdits {
  shown: number;
  queue: Promise<void>;
}

/**
 * Shows change requests in Slack: posts previews, edits them as their state changes, threads
 * results, and writes the audit line. Listeners call it after the approvals module decided.
 */
/** States after which a request's message changes no more but for notes. */
const SETTLED: ReadonlySet<string> = new Set(SETTLED_STATES);

export class ChangePresenter {
  // Edits of one message are sent one after another, and never show an earlier stage than one
  // already shown: a "Running…" edit that loses a race with "Done" is dropped, not shown last.
  private readonly edits = new Map<string, MessageEdits>();
  // Requests whose message Slack did not let the bot edit (the note it was to show, and since
  // when); every sweep tries again until Slack takes the edit, or OWED_FOR_MS has passed.
  private readonly owed = new Map<string, { note: string | undefined; since: number }>();
  // Requests whose result Slack refused to post in the preview's thread: every sweep tries again
  // until Slack takes it, then forgets it. Like the owed edits, kept in this process's memory (a
  // restart forgets both): only the replica that ran a change learns its outcome, so with several
  // replicas on PostgreSQL the result is still owed, and posted, by one of them only.
  private readonly owedResults = new Map<string, number>();
  private lastAnchor: { count: number; head: string } | undefined;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly approvals: Approvals,
    private readonly logger: Logger,
    private readonly auditChannel: string | undefined,
  ) {}

  // Requests this process is posting now, so its own sweep does not post them a second time.
  private readonly announcing = new Set<string>();

  /**
   * Posts a freshly proposed request; an identical older one it superseded loses its buttons. A
   * request Slack would not post (the bot is not in the channel, the message too long, …) is
   * withdrawn, so nobody approves what its channel never saw, and a SlackStepError says why.
   */
  async postProposal(request: ChangeRequest, channel: string): Promise<MessageRef | undefined> {
    const shown = await this.postOrWithdraw(request, channel);
    const old = request.replaces ? await this.approvals.get(request.replaces) : undefined;
    if (old) await this.refreshOrOwe(old, 'A newer identical request replaced this one.');
    return shown;
  }

  // Deliberately alike: postOrWithdraw wraps postPreview, so the two take the same arguments.
  private async postOrWithdraw(
    request: ChangeRequest,
    channel: string,
    note?: string,
  ): Promise<MessageRef | undefined> {
    try {
      return await this.postPreview(request, channel, note);
    } catch (error) {
      if (error instanceof SlackStepError) {
        await this.approvals.withdraw(request.id).catch((failure: unknown) => {
          this.logger.error(
            { err: failure, request: request.id },
            'could not withdraw an unposted change request',
          );
        });
      }
      throw error;
    }
  }

  /**
   * Posts a request an MCP client proposed, in its channel (MCP_APPROVAL_CHANNEL), as /net would
   * have; resolves with the message that shows it, which another process may have posted first.
   */
  async announce(request: ChangeRequest): Promise<MessageRef | undefined> {
    if (!request.channel || this.announcing.has(request.id)) return undefined;
    this.announcing.add(request.id);
    try {
      // Withdrawn only when Slack refuses the message itself (invalid_blocks, too long): posting
      // it again would be refused again. Any other failure is left to the next sweep.
      const shown = await this.postPreview(request, request.channel).catch(async (error: unknown) => {
        if (error instanceof SlackStepError && slackRefusedContent(error)) {
          await this.approvals.withdraw(request.id);
        }
        throw error;
      });
      const old = request.replaces ? await this.approvals.get(request.replaces) : undefined;
      if (old) await this.refreshOrOwe(old, 'A newer identical request replaced this one.');
      return shown;
    } finally {
      this.announcing.delete(request.id);
    }
  }

  /** The message's permalink (chat.getPermalink, which needs no scope); undefined if Slack gives none. */
  async link(message: MessageRef): Promise<string | undefined> {
    try {
      const answer = await this.client.chat.getPermalink({
        channel: message.channel,
        message_ts: message.ts,
      });
      return answer.permalink;
    } catch (error) {
      this.logger.warn({ err: error, channel: message.channel }, 'could not get a message permalink');
      return undefined;
    }
  }

  /**
   * Posts a pending request in its channel and records the message for later edits. Should another
   * process have recorded its own message for it meanwhile, this copy is voided and theirs returned.
   * A request decided or expired before the message was recorded (nothing could edit a message not
   * yet known) is edited as soon as it is.
   */
  private async postPreview(
    request: ChangeRequest,
    channel: string,
    note?: string,
  ): Promise<MessageRef | undefined> {
    const message = changeRequestMessage(request, note);
    let posted: Awaited<ReturnType<webApi.WebClient['chat']['postMessage']>>;
    try {
      posted = await this.client.chat.postMessage({ channel, ...message });
    } catch (error) {
      throw new SlackStepError('post_preview', channel, error);
    }
    if (!posted.ts) return undefined;
    const ref = { channel: posted.channel ?? channel, ts: posted.ts };
    const recorded = await this.approvals.announce(request.id, ref);
    if (!recorded) {
      const text = 'This copy was posted twice; the change request is shown in another message.';
      await this.update(ref.channel, ref.ts, {
        text,
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
      }).catch((error: unknown) => {
        this.logger.warn(
          { err: error, request: request.id },
          'could not void a copy of a change request message',
        );
      });
      return (await this.approvals.get(request.id))?.message;
    }
    if (recorded.state !== 'pending') await this.refreshOrOwe(recorded);
    else await this.copyToApprovers(recorded, message);
    await this.attachFullPreview(request, ref);
    return ref;
  }

  /**
   * A change that needs named approvers: each gets the preview and its buttons in a direct
   * message, so the people who must act see it without watching the channel. A copy Slack refuses
   * is logged; the channel's message stays the one of record.
   */
  private async copyToApprovers(request: ChangeRequest, message: SlackMessage): Promise<void> {
    const people = (request.assessment?.approvers ?? []).filter(
      (id) => /^[UW][A-Z0-9]+$/.test(id) && id !== request.requester.userId,
    );
    const copies: MessageRef[] = [];
    for (const user of people) {
      try {
        const posted = await this.client.chat.postMessage({ channel: user, ...message });
        if (posted.ts) copies.push({ channel: posted.channel ?? user, ts: posted.ts });
      } catch (error) {
        this.logger.warn({ err: error, request: request.id, user }, 'could not send an approver their copy');
      }
    }
    await this.approvals.addApproverCopies(request.id, copies);
  }

  /**
   * Uploads the whole preview and the request body into the preview's thread when the message
   * could not show all of it (the message says so). If the upload fails, the message is edited to
   * say the change cannot be read in full, rather than leaving an approver with part of it.
   */
  private async attachFullPreview(request: ChangeRequest, ref: { channel: string; ts: string }) {
    const attachment = previewAttachment(request);
    if (!attachment) return;
    try {
      await this.client.filesUploadV2({
        channel_id: ref.channel,
        thread_ts: ref.ts,
        initial_comment: attachment.comment,
        file_uploads: attachment.files.map(({ filename, title, content }) => ({ filename, title, content })),
      });
    } catch (error) {
      this.logger.error({ err: error, request: request.id }, 'could not attach the full preview');
      await this.refreshOrOwe(
        (await this.approvals.get(request.id)) ?? request,
        ':warning: The full preview could not be attached, so this message does not show the whole change. ' +
          'Do not approve it: cancel it and preview it in the console instead.',
      );
    }
  }

  /** Re-renders a request's message from its current state (buttons disappear once it is decided). */
  async refresh(request: ChangeRequest, note?: string): Promise<void> {
    const ref = request.message;
    if (!ref) return;
    const at = stage(request.state);
    const edits = this.edits.get(request.id) ?? { shown: -1, queue: Promise.resolve() };
    const edit = edits.queue.then(async () => {
      if (edits.shown > at) return;
      const message = changeRequestMessage(request, note);
      await this.update(ref.channel, ref.ts, message);
      edits.shown = Math.max(edits.shown, at);
      // Every approver's copy says the same: who approved, how many of how many, the outcome.
      const copies = await this.approvals.approverCopies(request.id);
      for (const copy of copies) {
        await this.update(copy.channel, copy.ts, message).catch((error: unknown) => {
          this.logger.warn({ err: error, request: request.id }, 'could not edit an approver copy');
        });
      }
      // The store's data keeps them only while there is something left to show.
      if (copies.length > 0 && SETTLED.has(request.state))
        await this.approvals.forgetApproverCopies(request.id);
    });
    edits.queue = edit.catch(() => undefined);
    this.edits.delete(request.id);
    this.edits.set(request.id, edits);
    if (this.edits.size > TRACKED_MESSAGES) {
      const oldest = this.edits.keys().next().value;
      if (oldest !== undefined) this.edits.delete(oldest);
    }
    await edit;
  }

  /**
   * refresh(), and when Slack does not take the edit, the edit is owed: logged, and made by the
   * next sweep. Resolves with what Slack said when the edit was not made now.
   */
  private async refreshOrOwe(
    request: ChangeRequest,
    note?: string,
    since?: number,
  ): Promise<{ error: unknown } | undefined> {
    try {
      await this.refresh(request, note);
      this.owed.delete(request.id);
      return undefined;
    } catch (error) {
      this.owed.set(request.id, { note, since: since ?? this.approvals.now() });
      this.logger.warn(
        { err: error, request: request.id },
        'could not edit a change request message; trying again at the next sweep',
      );
      return { error };
    }
  }

  /** Right after the claim, before the change runs: "Running…", without buttons. */
  async showRunning(request: ChangeRequest): Promise<void> {
    await this.refresh(request);
  }

  /**
   * Posts the journal's position (event count and head hash) to AUDIT_CHANNEL as an anchor, when
   * it moved since the last one this process posted. Kept outside the bot's disk, an anchor lets
   * `audit:verify --anchor` find a journal rewritten or cut back behind it.
   */
  async postAnchor(reason: 'start' | 'periodic' | 'stop'): Promise<void> {
    if (!this.auditChannel) return;
    const head = await this.approvals.journalHead();
    if (head.count === 0) return;
    if (this.lastAnchor?.count === head.count && this.lastAnchor.head === head.head) return;
    const anchor = `${head.count}:${head.head}`;
    const text =
      `:anchor: Journal anchor (${reason}): ${head.count} events, head \`${anchor}\`. ` +
      `Check the journal against it with \`audit:verify --anchor ${anchor}\`.`;
    await this.client.chat.postMessage({
      channel: this.auditChannel,
      text,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
    });
    this.lastAnchor = head;
  }

  /** The break-glass alarm, at once: in AUDIT_CHANNEL, else in the channel it was asked in. */
  async postBreakGlass(request: ChangeRequest, channel: string | undefined): Promise<void> {
    const target = this.auditChannel ?? channel;
    if (!target) return;
    await this.client.chat.postMessage({ channel: target, ...breakGlassMessage(request, channel) });
  }

  /** Tells the clicker and the channel what an Approve click led to. */
  async showApproval(outcome: ApproveOutcome, whisper: Whisper): Promise<void> {
    switch (outcome.kind) {
      case 'not_found':
      case 'refused':
      case 'already':
        await whisper(undecidedText(outcome));
        return;
      case 'expired':
        await this.refreshOrOwe(outcome.request);
        await whisper(
          ':hourglass: This change request expired; nothing was run. Request it again for a fresh preview.',
        );
        return;
      case 'endorsed': {
        // One approval of several; the message shows "1 of 2 approvals" and who may still approve.
        const given = outcome.request.approvedBy?.length ?? 0;
        await this.refreshOrOwe(outcome.request);
        await whisper(
          `:ballot_box_with_check: Your approval is recorded: ${given} of ${outcome.needed} approvals. It runs when the last required approval arrives.`,
        );
        return;
      }
      case 'scheduled': {
        // Approved outside its window; it runs at the opening.
        const { request } = outcome;
        await this.refreshOrOwe(request);
        await this.threadNote(
          request,
          `:calendar: Approved outside its change window: scheduled for ${request.scheduledFor ? slackDate(request.scheduledFor) : 'the next opening'}. It runs then, after a fresh check of the target, its blast radius and the policy.`,
        );
        await whisper(
          `:calendar: Approved. This change may only run in its window, so it is scheduled for ${request.scheduledFor ? slackDate(request.scheduledFor) : 'the next opening'}.`,
        );
        return;
      }
      case 'sign_in': {
        // Only the clicker sees the link: it is theirs, bound to them, this change and this preview.
        const minutes = Math.max(1, Math.round((outcome.expiresAt - Date.now()) / 60_000));
        // A provider on plain http (one on this machine) gets no link markup: its address is shown to copy.
        const where = outcome.url.startsWith('https://')
          ? link('Sign in', outcome.url)
          : `Sign in at ${code(outcome.url)}`;
        // Break-glass on the word: the sign-in is the requester's, and it runs the change.
        const word = outcome.request.breakGlass?.approvals === 0;
        await whisper(
          word
            ? `:closed_lock_with_key: Not run yet: break-glass on your word needs step-up sign-in (${mrkdwn(outcome.why)}). ` +
                `${where} within ${minutes} min and the change runs. The link works once and only for you.`
            : `:closed_lock_with_key: Not counted yet: this change needs step-up sign-in (${mrkdwn(outcome.why)}). ` +
                `${where} within ${minutes} min and your approval counts. The link works once and only for you.`,
        );
        return;
      }
      case 'mismatch':
        // The stored request is not what the clicked message showed (the store was changed
        // behind the bot's back): never run it, and leave the message for an admin to look at.
        await whisper(
          `:no_entry: Not run: this message shows preview ${code(outcome.shownHash.slice(0, 8))}, but the stored change request has preview ${code(outcome.request.previewHash.slice(0, 8))}. ` +
            'The stored request is not the change you saw, so nothing was run; ask an admin to check the journal (`audit:verify`).',
        );
        return;
      case 'drift': {
        // The differences quote controller data (names, values): escaped like any other data.
        const changed = codeBlock(outcome.differences.slice(0, 10).join('\n'));
        await this.refreshOrOwe(
          outcome.request,
          `:twisted_rightwards_arrows: The target changed since this preview:\n${changed}`,
        );
        const channel = outcome.request.message?.channel ?? outcome.request.channel;
        if (channel)
          await this.postOrWithdraw(
            outcome.replacement,
            channel,
            'New preview: the target changed since the previous one.',
          );
        await whisper(
          ':twisted_rightwards_arrows: The target changed since the preview, so nothing ran. A new preview was posted.',
        );
        return;
      }
      case 'succeeded':
      case 'failed': {
        // The change ran: whatever Slack refuses now, the approver learns the outcome.
        const { request } = outcome;
        const notEdited = await this.refreshOrOwe(request);
        const notThreaded = await this.threadResultOrOwe(request);
        await this.audit(request);
        const owed = notEdited ?? (notThreaded?.owed ? notThreaded : undefined);
        const lost = notThreaded && !notThreaded.owed ? notThreaded : undefined;
        if (!owed && !lost) return;
        const problem = (refused: { error: unknown }) =>
          slackProblem(refused.error, request.message?.channel) ?? 'Slack did not take the message';
        const told = [resultThreadMessage(request).text];
        if (owed)
          told.push(
            `The channel does not show it yet: ${problem(owed)}; the bot tries again at its next sweep.`,
          );
        if (lost)
          told.push(
            `The thread may not show it: ${problem(lost)}, and Slack may have posted it anyway, so the bot does not post it again.`,
          );
        await whisper(told.join(' '));
        return;
      }
    }
  }

  /** Tells the clicker and the channel what a Cancel click led to. */
  async showCancel(outcome: CancelOutcome, whisper: Whisper): Promise<void> {
    if (outcome.kind !== 'cancelled') {
      await whisper(undecidedText(outcome));
      return;
    }
    const notEdited = await this.refreshOrOwe(outcome.request);
    if (notEdited) {
      const problem =
        slackProblem(notEdited.error, outcome.request.message?.channel) ?? 'Slack did not take the edit';
      await whisper(
        `:no_entry_sign: Cancelled; nothing was run. The channel message does not show it yet: ${problem}; the bot tries again at its next sweep.`,
      );
    }
  }

  /**
   * Expires overdue requests and marks runs cut off by a dead process as unknown, then edits
   * their messages ("expired, not run" / "outcome unknown"), and makes the edits and the thread
   * results Slack refused before. With several replicas each request comes back from the store to
   * one of them only, so each message is edited once. Then edits the messages of requests a
   * process without Slack changed (stale-messages.ts), and posts what MCP clients proposed there.
   */
  async sweep(): Promise<{ expired: number; interrupted: number; announced: number; edited: number }> {
    const { expired, interrupted } = await this.approvals.sweep();
    // Reported by the store once only: an edit Slack refuses is owed until Slack takes it.
    await this.payOwed([...interrupted.map((i) => i.request), ...expired]);
    // A rollout settled after its replica stopped is halted: its thread asks what to do next.
    for (const { request } of interrupted)
      if (request.set?.rollout && request.state === 'failed') await this.threadResultOrOwe(request);
    // The marks stay in the store when it cannot be read now: the next sweep edits them.
    const edited = await refreshStaleMessages(this.approvals, this, this.logger).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not read the change requests other processes changed');
      return 0;
    });
    return {
      expired: expired.length,
      interrupted: interrupted.length,
      announced: await this.announceLeftOver(),
      edited,
    };
  }

  /** Whether an edit or a thread result that Slack refused is still to be made. */
  get owes(): boolean {
    return this.owed.size > 0 || this.owedResults.size > 0;
  }

  /**
   * Makes the edits and thread results Slack refused before, and edits `fresh` (requests the sweep
   * just expired or found cut off): part of every sweep, and a stopping bot's last try.
   */
  async payOwed(fresh: readonly ChangeRequest[] = []): Promise<void> {
    const edits: { request: ChangeRequest; note?: string; since?: number }[] = [];
    for (const [id, { note, since }] of this.owed) {
      this.owed.delete(id);
      if (this.givenUp(id, since, 'edit its message')) continue;
      const request = await this.approvals.get(id);
      if (request) edits.push({ request, since, ...(note === undefined ? {} : { note }) });
    }
    for (const request of fresh) edits.push({ request });
    for (const { request, note, since } of edits) await this.refreshOrOwe(request, note, since);
    for (const [id, since] of [...this.owedResults]) {
      // Taken before the post, so a sweep running beside this one cannot post it a second time.
      this.owedResults.delete(id);
      if (this.givenUp(id, since, 'post its result in the thread')) continue;
      const request = await this.approvals.get(id);
      if (request) await this.threadResultOrOwe(request, since);
    }
  }

  /**
   * A channel that refuses the bot for good (it was removed, the channel archived) is not tried
   * for ever: after OWED_FOR_MS the owed edit or post is dropped, with one warning. The journal
   * keeps the outcome; `/net change <id>` shows it.
   */
  private givenUp(id: string, since: number, what: string): boolean {
    if (this.approvals.now() - since < OWED_FOR_MS) return false;
    this.logger.warn(
      { request: id, owed_since: new Date(since).toISOString() },
      `gave up trying to ${what}: Slack refused it for ${OWED_FOR_MS / 3_600_000} hours (/net change ${id} shows the outcome)`,
    );
    return true;
  }

  /** Posts what MCP clients in other processes proposed (`netops mcp` over stdio has no Slack). */
  private async announceLeftOver(): Promise<number> {
    let announced = 0;
    for (const request of await this.approvals.unannounced(ANNOUNCE_GRACE_MS)) {
      try {
        if (await this.announce(request)) announced += 1;
      } catch (error) {
        this.logger.warn(
          { err: error, request: request.id },
          'could not post a change request from an MCP client',
        );
      }
    }
    return announced;
  }

  /**
   * Posts the result in the preview's thread. When Slack refused the post (it answered with an
   * error, so it posted nothing), the post is owed: logged, and made by the next sweep. When its
   * answer is unknown (Slack not reached, no answer, HTTP 5xx) Slack may have posted it, so it is
   * not posted again: a result shown twice is worse than one the edited message already carries.
   * (The Web API client itself sends a call again after a 5xx or a lost answer; that risk is its
   * own.) Resolves with what Slack said, and whether the post is owed, when it was not made now.
   */
  private async threadResultOrOwe(
    request: ChangeRequest,
    since?: number,
  ): Promise<{ error: unknown; owed: boolean } | undefined> {
    const message = request.message;
    if (!message) return undefined;
    try {
      await this.client.chat.postMessage({
        channel: message.channel,
        thread_ts: message.ts,
        ...resultThreadMessage(request),
      });
      return undefined;
    } catch (error) {
      const owed = slackRefused(error);
      if (owed) this.owedResults.set(request.id, since ?? this.approvals.now());
      this.logger.warn(
        { err: error, request: request.id, channel: message.channel },
        owed
          ? 'could not post a result in its thread; trying again at the next sweep'
          : 'could not post a result in its thread, and Slack may have posted it; not posting it again',
      );
      return { error, owed };
    }
  }

  /** A line in the request's thread (scheduled, or why a scheduled change did not run); logged when Slack refuses. */
  async threadNote(request: ChangeRequest, text: string): Promise<void> {
    const message = request.message;
    if (!message) return;
    try {
      await this.client.chat.postMessage({
        channel: message.channel,
        thread_ts: message.ts,
        text,
        blocks: [mrkdwnSection(text)],
      });
    } catch (error) {
      this.logger.warn({ err: error, request: request.id }, 'could not post a note in a change thread');
    }
  }

  private async audit(request: ChangeRequest): Promise<void> {
    if (!this.auditChannel) return;
    try {
      // Every outcome line anchors the journal: a tail cut after the last periodic
      // anchor is still found, back to the last change that ran.
      // A store that cannot say where the journal ends leaves this line without an anchor (the
      // periodic anchor tries again); the outcome line itself must still be posted.
      const head = await this.approvals.journalHead().catch((error: unknown) => {
        this.logger.warn({ err: error }, 'could not read the journal head for the audit line');
        return undefined;
      });
      const anchor = head && head.count > 0 ? head : undefined;
      const text = auditLine(request, anchor);
      await this.client.chat.postMessage({
        channel: this.auditChannel,
        text,
        blocks: [mrkdwnSection(text)],
      });
      if (anchor) this.lastAnchor = anchor;
    } catch (error) {
      // The journal is the durable audit trail; a missed channel line must not hide the outcome.
      this.logger.warn(
        { err: error, request: request.id, channel: this.auditChannel },
        'could not post to AUDIT_CHANNEL; the journal has the record',
      );
    }
  }

  private async update(channel: string, ts: string, message: SlackMessage): Promise<void> {
    await this.client.chat.update({ channel, ts, ...message });
  }
}

type Undecided = Extract<ApproveOutcome | CancelOutcome, { kind: 'not_found' | 'refused' | 'already' }>;

/** What the clicker is told when the click changed nothing. */
function undecidedText(outcome: Undecided): string {
  if (outcome.kind === 'not_found')
    return ':hourglass: This change request is unknown or expired; nothing was run.';
  if (outcome.kind === 'refused') return `:no_entry: ${outcome.reason}`;
  return alreadyText(outcome.request);
}

function alreadyText(request: ChangeRequest): string {
  const by = request.approver ? ` (approved by ${actorText(request.approver)})` : '';
  switch (request.state) {
    case 'approved':
    case 'executing':
      return `:gear: Already running${by}; it runs once.`;
    case 'succeeded':
      return `:white_check_mark: Already ran${by}; it runs once.`;
    case 'failed':
      if (request.notRun) {
        const why = request.error ? `: ${mrkdwn(request.error.message)}` : '';
        return `:no_entry_sign: Approved${by} but not run${why}. Request it again for a new preview.`;
      }
      return `:x: Already ran and failed${by}; request it again for a new preview.`;
    case 'cancelled':
      return ':no_entry_sign: This change request was cancelled; nothing was run.';
    case 'superseded':
      return ':twisted_rightwards_arrows: A newer preview replaced this one; use the newer message.';
    case 'unknown':
      return ':grey_question: The bot stopped while this ran; its outcome is unknown. Verify on the controller.';
    case 'scheduled':
      return `:calendar: Already approved${by}: it is scheduled to run when its change window opens.`;
    default:
      return `This change request is ${request.state}.`;
  }
}
