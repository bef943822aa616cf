import type { webApi } from '@slack/bolt';
import type { Approvals } from '../approvals/approvals.js';
import type { ApproveOutcome, CancelOutcome, ChangeRequest } from '../approvals/types.js';
import type { Logger } from '../log.js';
import {
  auditLine,
  changeRequestMessage,
  previewAttachment,
  resultThreadMessage,
} from './blocks/change-request.js';
import type { SlackMessage } from './blocks/read-result.js';
import { codeBlock, mention, mrkdwnSection } from './blocks/text.js';

/** Sends a message only the clicker sees (the click's response_url, or chat.postEphemeral). */
export type Whisper = (text: string) => Promise<void>;

/**
 * Shows change requests in Slack: posts previews, edits them as their state changes, threads
 * results, and writes the audit line. Listeners call it after the approvals module decided.
 */
export class ChangePresenter {
  constructor(
    private readonly client: webApi.WebClient,
    private readonly approvals: Approvals,
    private readonly logger: Logger,
    private readonly auditChannel: string | undefined,
  ) {}

  /** Posts a freshly proposed request; an identical older one it superseded loses its buttons. */
  async postProposal(request: ChangeRequest, channel: string): Promise<void> {
    await this.postPreview(request, channel);
    const old = request.replaces ? await this.approvals.get(request.replaces) : undefined;
    if (old) await this.refresh(old, 'A newer identical request replaced this one.');
  }

  /** Posts a pending request in its channel and remembers the message for later edits. */
  private async postPreview(request: ChangeRequest, channel: string, note?: string): Promise<void> {
    const message = changeRequestMessage(request, note);
    const posted = await this.client.chat.postMessage({ channel, ...message });
    if (posted.ts) {
      const ref = { channel: posted.channel ?? channel, ts: posted.ts };
      await this.approvals.attachMessage(request.id, ref);
      await this.attachFullPreview(request, ref);
    }
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
      await this.refresh(
        (await this.approvals.get(request.id)) ?? request,
        ':warning: The full preview could not be attached, so this message does not show the whole change. ' +
          'Do not approve it: cancel it and preview it in the console instead.',
      );
    }
  }

  /** Re-renders a request's message from its current state (buttons disappear once it is decided). */
  async refresh(request: ChangeRequest, note?: string): Promise<void> {
    if (!request.message) return;
    await this.update(request.message.channel, request.message.ts, changeRequestMessage(request, note));
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
        await this.refresh(outcome.request);
        await whisper(
          ':hourglass: This change request expired; nothing was run. Request it again for a fresh preview.',
        );
        return;
      case 'drift': {
        // The differences quote controller data (names, values): escaped like any other data.
        const changed = codeBlock(outcome.differences.slice(0, 10).join('\n'));
        await this.refresh(
          outcome.request,
          `:twisted_rightwards_arrows: The target changed since this preview:\n${changed}`,
        );
        const channel = outcome.request.message?.channel ?? outcome.request.channel;
        if (channel)
          await this.postPreview(
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
      case 'failed':
        await this.refresh(outcome.request);
        await this.threadResult(outcome.request);
        await this.audit(outcome.request);
        return;
    }
  }

  /** Tells the clicker and the channel what a Cancel click led to. */
  async showCancel(outcome: CancelOutcome, whisper: Whisper): Promise<void> {
    if (outcome.kind === 'cancelled') await this.refresh(outcome.request);
    else await whisper(undecidedText(outcome));
  }

  /**
   * Expires overdue requests and marks runs cut off by a dead process as unknown, then edits
   * their messages ("expired, not run" / "outcome unknown"). With several replicas each request
   * comes back from the store to one of them only, so each message is edited once.
   */
  async sweep(): Promise<{ expired: number; interrupted: number }> {
    const { expired, interrupted } = await this.approvals.sweep();
    for (const request of [...interrupted.map((i) => i.request), ...expired]) {
      try {
        await this.refresh(request);
      } catch (error) {
        this.logger.warn({ err: error, request: request.id }, 'could not edit a change request message');
      }
    }
    return { expired: expired.length, interrupted: interrupted.length };
  }

  private async threadResult(request: ChangeRequest): Promise<void> {
    if (!request.message) return;
    await this.client.chat.postMessage({
      channel: request.message.channel,
      thread_ts: request.message.ts,
      ...resultThreadMessage(request),
    });
  }

  private async audit(request: ChangeRequest): Promise<void> {
    if (!this.auditChannel) return;
    try {
      const text = auditLine(request);
      await this.client.chat.postMessage({
        channel: this.auditChannel,
        text,
        blocks: [mrkdwnSection(text)],
      });
    } catch (error) {
      // The journal is the durable audit trail; a missed channel line must not hide the outcome.
      this.logger.error({ err: error, request: request.id }, 'could not post to AUDIT_CHANNEL');
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
  const by = request.approver ? ` (approved by ${mention(request.approver.userId)})` : '';
  switch (request.state) {
    case 'approved':
    case 'executing':
      return `:gear: Already running${by}; it runs once.`;
    case 'succeeded':
      return `:white_check_mark: Already ran${by}; it runs once.`;
    case 'failed':
      return `:x: Already ran and failed${by}; request it again for a new preview.`;
    case 'cancelled':
      return ':no_entry_sign: This change request was cancelled; nothing was run.';
    case 'superseded':
      return ':twisted_rightwards_arrows: A newer preview replaced this one; use the newer message.';
    case 'unknown':
      return ':grey_question: The bot stopped while this ran; its outcome is unknown. Verify on the controller.';
    default:
      return `This change request is ${request.state}.`;
  }
}
