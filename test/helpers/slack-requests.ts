import { createHmac } from 'node:crypto';

/** Signs a raw body the way Slack does (v0, HMAC-SHA256 of `v0:<ts>:<body>`). */
export function slackHeaders(secret: string, rawBody: string, timestamp = Math.floor(Date.now() / 1000)) {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
  return {
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': signature,
    'content-type': 'application/x-www-form-urlencoded',
  };
}

/** Form body of a slash command. */
export function commandBody(fields: {
  text: string;
  user_id?: string;
  channel_id?: string;
  response_url: string;
}): string {
  return new URLSearchParams({
    token: 'unused',
    team_id: 'T1',
    team_domain: 'example',
    channel_id: fields.channel_id ?? 'C1',
    channel_name: 'netops',
    user_id: fields.user_id ?? 'U1',
    user_name: 'alice',
    command: '/net',
    text: fields.text,
    api_app_id: 'A1',
    response_url: fields.response_url,
    trigger_id: 'trigger-1',
  }).toString();
}

/** Form body of a button click on a message. */
export function buttonBody(fields: {
  actionId: string;
  value: string;
  userId: string;
  channel?: string;
  messageTs?: string;
  response_url: string;
  /** The block_id of the clicked actions block, as the bot rendered it (it carries the preview hash). */
  blockId?: string;
}): string {
  return blockActionsBody(fields.userId, 'trigger-2', {
    container: { type: 'message', channel_id: fields.channel ?? 'C1', message_ts: fields.messageTs ?? '1.0' },
    channel: { id: fields.channel ?? 'C1' },
    message: { ts: fields.messageTs ?? '1.0', text: 'preview' },
    response_url: fields.response_url,
    actions: [
      {
        action_id: fields.actionId,
        block_id: fields.blockId ?? 'decide',
        type: 'button',
        value: fields.value,
        action_ts: '1.1',
      },
    ],
  });
}

/** Form body of a modal submission. */
export function viewSubmissionBody(fields: {
  userId: string;
  privateMetadata: string;
  values: Record<string, Record<string, unknown>>;
  /** The blocks of the view as it was opened (Slack sends them back with the submission). */
  blocks?: unknown[];
  /** The modal's callback_id [tool_form]. */
  callbackId?: string;
}): string {
  const payload = {
    type: 'view_submission',
    team: { id: 'T1' },
    user: { id: fields.userId },
    api_app_id: 'A1',
    view: {
      id: 'V1',
      type: 'modal',
      callback_id: fields.callbackId ?? 'tool_form',
      private_metadata: fields.privateMetadata,
      ...(fields.blocks ? { blocks: fields.blocks } : {}),
      state: { values: fields.values },
    },
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** JSON body of an Events API delivery of `app_home_opened` (sign it, and send it as JSON). */
export function homeOpenedBody(userId: string, tab: 'home' | 'messages' = 'home'): string {
  return JSON.stringify({
    token: 'unused',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `Ev${userId}${Date.now()}`,
    event_time: Math.floor(Date.now() / 1000),
    event: { type: 'app_home_opened', user: userId, channel: 'D1', tab, event_ts: `${Date.now() / 1000}` },
  });
}

/** Headers of a signed JSON body (Events API deliveries). */
export function slackJsonHeaders(secret: string, rawBody: string) {
  return { ...slackHeaders(secret, rawBody), 'content-type': 'application/json' };
}

/** Form body of a button click on App Home: no channel, no response_url, the container is the view. */
export function homeButtonBody(fields: { actionId: string; value: string; userId: string }): string {
  return blockActionsBody(fields.userId, 'trigger-home', {
    container: { type: 'view', view_id: `VH${fields.userId}` },
    view: { id: `VH${fields.userId}`, type: 'home', callback_id: 'netops_home' },
    actions: [
      { action_id: fields.actionId, block_id: 'home', type: 'button', value: fields.value, action_ts: '1.1' },
    ],
  });
}

/** Form body of a `block_actions` payload by `userId`: the envelope fields every click shares, then `rest`. */
function blockActionsBody(userId: string, triggerId: string, rest: Record<string, unknown>): string {
  const payload = {
    type: 'block_actions',
    team: { id: 'T1' },
    user: { id: userId, username: userId.toLowerCase() },
    api_app_id: 'A1',
    trigger_id: triggerId,
    ...rest,
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** What Socket Mode carries as an envelope's payload: a form body's `payload` field, or its fields as JSON. */
export function socketPayload(formBody: string): Record<string, unknown> {
  const fields = Object.fromEntries(new URLSearchParams(formBody));
  return typeof fields.payload === 'string'
    ? (JSON.parse(fields.payload) as Record<string, unknown>)
    : fields;
}
