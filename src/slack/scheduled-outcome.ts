import type { ApproveOutcome } from '../approvals/types.js';
import { mrkdwn } from './blocks/text.js';
import type { ChangePresenter } from './change-presenter.js';

/**
 * What a scheduled change did at its window's opening, in its message and thread. Nobody clicked:
 * what a clicker would be told goes into the change's thread instead.
 */
export async function showScheduledOutcome(
  presenter: ChangePresenter,
  outcome: ApproveOutcome,
): Promise<void> {
  const request = 'request' in outcome ? outcome.request : undefined;
  const inThread = async (text: string) => {
    if (request) await presenter.threadNote(request, text);
  };
  if (outcome.kind === 'drift') {
    await inThread(
      `:twisted_rightwards_arrows: Not run at the opening of its window: the target changed since it was approved (${mrkdwn(outcome.differences.slice(0, 5).join('; '))}). A new preview was posted; it needs new approvals.`,
    );
  }
  await presenter.showApproval(outcome, outcome.kind === 'drift' ? async () => undefined : inThread);
}
