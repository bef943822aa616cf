import type { types } from '@slack/bolt';
import type { Drift } from '../../watch/types.js';
import { clock, placeContext, placeSuffix } from './alerts.js';
import type { SlackMessage } from './read-result.js';
import { clip, clipMrkdwn, code, codeBlock, mrkdwn } from './text.js';

/** The drift message's buttons; each value is the drift id. */
export const ACCEPT_DRIFT_ACTION = 'accept_drift';
export const REVERT_DRIFT_ACTION = 'revert_drift';

const KIND_WORDS: Record<Drift['kind'], string> = {
  networks: 'Network',
  zones: 'Firewall zone',
  policies: 'Firewall policy',
  firewall_rules: 'Firewall rule',
  acl_rules: 'ACL rule',
  lists: 'Traffic matching list',
  routes: 'Traffic route',
  wifi: 'Wi-Fi network',
};

const show = (value: unknown) => (value === undefined ? '(none)' : clip(JSON.stringify(value), 200));

/** One configuration object changed outside the bot: each field before → after, and Accept / Revert. */
export function driftMessage(drift: Drift, options: { timeZone?: string } = {}): SlackMessage {
  const title = `${KIND_WORDS[drift.kind]} *${mrkdwn(drift.objectName)}* (${code(drift.objectId)}) was ${drift.change} outside the bot`;
  const blocks: types.KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: clipMrkdwn(`:warning: ${title}`, 2900) } },
  ];
  if (drift.fields.length > 0) {
    const lines = drift.fields.map((f) => `${f.field}: ${show(f.before)} → ${show(f.after)}`);
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: codeBlock(clip(lines.join('\n'), 2800)) } });
  }
  const context = [
    placeContext(drift),
    `noticed at ${clock(drift.noticedAt, options.timeZone)}`,
    `changed by ${drift.changedBy ? mrkdwn(drift.changedBy) : 'unknown (no admin log readable)'}`,
  ];
  if (drift.acceptedBy) context.push(`accepted by <@${drift.acceptedBy.userId}>`);
  if (drift.revertRequestId)
    context.push(
      `revert proposed by <@${drift.revertedBy?.userId ?? '?'}> as ${code(drift.revertRequestId)}`,
    );
  if (drift.revertUnavailable) context.push(`no Revert: ${mrkdwn(drift.revertUnavailable)}`);
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: clipMrkdwn(context.join(' · '), 2900) }],
  });
  const buttons: types.Button[] = [];
  if (!drift.acceptedBy && !drift.revertRequestId) {
    buttons.push({
      type: 'button',
      action_id: ACCEPT_DRIFT_ACTION,
      text: { type: 'plain_text', text: 'Accept' },
      value: drift.id,
    });
    if (!drift.revertUnavailable)
      buttons.push({
        type: 'button',
        action_id: REVERT_DRIFT_ACTION,
        text: { type: 'plain_text', text: 'Revert' },
        style: 'danger',
        value: drift.id,
      });
  }
  if (buttons.length > 0) blocks.push({ type: 'actions', elements: buttons });
  return {
    text: clipMrkdwn(
      `${KIND_WORDS[drift.kind]} ${mrkdwn(drift.objectName)} was ${drift.change} outside the bot${placeSuffix(drift)}`,
      3000,
    ),
    blocks,
  };
}
