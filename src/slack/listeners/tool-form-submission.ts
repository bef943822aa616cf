import { z } from 'zod';
import type { ChangeRequest } from '../../approvals/types.js';
import { type FieldIssue, ValidationError } from '../../errors.js';
import { type Settled, settle, settledWithin } from '../../lib/settle-within.js';
import { noticeMessage } from '../blocks/notice.js';
import { plain } from '../blocks/text.js';
import {
  FORM_CHANNEL_ACTION,
  FORM_CHANNEL_BLOCK,
  FORM_VALUE_ACTION,
  formArguments,
  TOOL_FORM_CALLBACK,
} from '../blocks/tool-form.js';
import type { SlackClient, SlackDeps } from '../deps.js';
import { slackErrorText } from '../error-text.js';
import { parsePayload, viewSubmissionSchema } from '../payloads.js';
import type { SlackRoutes } from '../slack-routes.js';
import { scopeToChannel } from './channel-scope.js';
import { formInputsOf } from './form-inputs.js';

// channel '' = opened from App Home: the form itself asks where to post the preview.
const metadataSchema = z.object({ tool: z.string().min(1), channel: z.string() });
const pickedSchema = z.object({ selected_conversation: z.string().min(1) });

/**
 * How long the dry run may take before the modal is acknowledged anyway. Slack drops a
 * view_submission not acknowledged within 3 s; within this budget, a value only the dry run finds
 * missing or wrong (a subnet "required unless vlan-only") can still be shown under its input.
 */
export const FORM_ACK_BUDGET_MS = 2000;

/**
 * A submitted tool form: invalid or missing input keeps the modal open with errors under the
 * named inputs; valid input closes it and posts the preview in the channel the form came from.
 */
export function registerToolForm(routes: SlackRoutes, deps: SlackDeps): void {
  routes.view(TOOL_FORM_CALLBACK, async ({ ack, body, client }) => {
    let submission: ReturnType<typeof parseSubmission>;
    try {
      submission = parseSubmission(body, deps);
    } catch (error) {
      if (error instanceof ValidationError) {
        await ack({ response_action: 'errors', errors: errorsByBlock(error.issues, body, deps) });
        return;
      }
      await ack({
        response_action: 'errors',
        errors: { [firstBlock(body)]: slackErrorText(error, deps.logger) },
      });
      return;
    }
    const { tool, channel, args, user } = submission;
    const proposal = settle(deps.approvals.propose({ tool, args, requester: { userId: user }, channel }));
    const early = await settledWithin(proposal, FORM_ACK_BUDGET_MS);
    if (early && !early.ok && early.error instanceof ValidationError) {
      await ack({ response_action: 'errors', errors: errorsByBlock(early.error.issues, body, deps) });
      return;
    }
    await ack();
    await postFormProposal(early ?? (await proposal), channel, user, client, deps);
  });
}

/**
 * The preview of a request proposed from a modal (already closed), posted in its channel; a failure
 * is told to the user in the channel, or on App Home when the channel refuses the bot.
 */
export async function postFormProposal(
  outcome: Settled<ChangeRequest>,
  channel: string,
  user: string,
  client: SlackClient,
  deps: SlackDeps,
): Promise<void> {
  try {
    if (!outcome.ok) throw outcome.error;
    await deps.presenter.postProposal(outcome.value, channel);
  } catch (error) {
    const text = slackErrorText(error, deps.logger);
    try {
      await client.chat.postEphemeral({ channel, user, ...noticeMessage(text) });
    } catch (refused) {
      // The modal is closed and the channel refuses the bot (not in it, most often): the
      // requester's App Home is the one place left to say so.
      deps.logger.warn(
        { err: refused },
        'could not answer a form in its channel; telling the user on App Home',
      );
      if (!deps.home) throw refused;
      await deps.home.notify(user, text);
    }
  }
}

function parseSubmission(body: unknown, deps: SlackDeps) {
  const submission = parsePayload(viewSubmissionSchema, body, 'view');
  let metadata: z.infer<typeof metadataSchema>;
  try {
    metadata = metadataSchema.parse(JSON.parse(submission.view.private_metadata));
  } catch {
    throw new ValidationError([{ field: 'private_metadata', rule: 'is not a form this bot opened' }]);
  }
  const infos = formInputsOf(deps, metadata.tool);
  const typed = formArguments(infos, submission.view.state.values);
  const picked = pickedSchema.safeParse(
    submission.view.state.values[FORM_CHANNEL_BLOCK]?.[FORM_CHANNEL_ACTION],
  );
  const channel = metadata.channel || (picked.success ? picked.data.selected_conversation : '');
  if (channel === '') {
    throw new ValidationError([
      { field: FORM_CHANNEL_BLOCK, rule: 'pick the channel to post the preview in' },
    ]);
  }
  // The channel's console and site, and its refusal of a write aimed elsewhere (CONSOLES_FILE).
  const args = scopeToChannel(metadata.tool, typed, channel, deps);
  // Validate now, while the modal can still show errors; the dry run follows.
  deps.registry.validate(metadata.tool, args);
  return { tool: metadata.tool, channel, args, user: submission.user.id };
}

/** Issues keyed by the input block they belong to (Slack shows errors only under inputs). */
function errorsByBlock(
  issues: readonly FieldIssue[],
  body: unknown,
  deps: SlackDeps,
): Record<string, string> {
  const blocks = [...inputBlocks(body), FORM_CHANNEL_BLOCK];
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const field = issue.field.split('.')[0] ?? '';
    const block = blocks.includes(field) ? field : (blocks[0] ?? 'site_id');
    // Slack shows these under the inputs as plain text: no mrkdwn escaping, hidden characters shown.
    const text = plain(blocks.includes(field) ? issue.rule : `${issue.field}: ${issue.rule}`);
    errors[block] = errors[block] ? `${errors[block]}; ${text}` : text;
  }
  deps.logger.debug({ errors }, 'tool form refused');
  return errors;
}

function inputBlocks(body: unknown): string[] {
  const parsed = viewSubmissionSchema.safeParse(body);
  if (!parsed.success) return [];
  return Object.entries(parsed.data.view.state.values)
    .filter(([, actions]) => FORM_VALUE_ACTION in actions)
    .map(([blockId]) => blockId);
}

function firstBlock(body: unknown): string {
  return inputBlocks(body)[0] ?? 'site_id';
}
