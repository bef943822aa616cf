import type { types } from '@slack/bolt';
import type { ChangeRequest } from '../../approvals/types.js';
import { revertability } from '../../changes/revert.js';
import type { PendingRevert } from '../../changes/timers.js';
import type { ControllerStatus } from '../../tools/core/define-tool.js';
import { REVIEW_BREAKGLASS_ACTION } from './break-glass.js';
import { linked, STATE_EMOJI, summaryText } from './change-history.js';
import { CANCEL_ACTION, decisionActions } from './change-request.js';
import { controllerApisBlocks } from './controller-apis.js';
import { type ConsoleRow, consolesBlocks } from './home-consoles.js';
import { pendingRevertBlocks } from './keep-prompt.js';
import { LIMITS } from './limits.js';
import { REVERT_ACTION } from './revert.js';
import {
  actorText,
  channelMention,
  clip,
  code,
  humanize,
  mention,
  mrkdwn,
  plainText,
  slackDate,
} from './text.js';

/** action_ids of the Home tab's own buttons (Approve and Cancel reuse the channel buttons' ids). */
export const HOME_REFRESH_ACTION = 'home_refresh';
export const HOME_PAGE_ACTION = 'home_page';
/** Prefix of the quick-action buttons: `home_form:<tool>` opens that tool's form. */
export const HOME_FORM_ACTION = 'home_form';
/** callback_id of the published Home view. */
export const HOME_CALLBACK = 'netops_home';

/** Requests shown per page of "Waiting for you" (two blocks each). */
export const WAITING_PAGE_SIZE = 10;
/** The user's own requests shown, newest first. */
export const MINE_SHOWN = 10;
/** Finished changes shown under "Recent changes". */
export const RECENT_SHOWN = 20;

/** Run now of a scheduled change on App Home (Cancel reuses the channel button's id). */
export const RUN_SCHEDULED_ACTION = 'run_scheduled_now';
/** Scheduled changes shown on App Home, soonest first. */
export const SCHEDULED_SHOWN = 10;

/** A write the Home tab offers as a button that opens its form. */
export interface QuickAction {
  tool: string;
  label: string;
}

/** Everything one user's Home shows, gathered by the Home service; the builder only lays it out. */
export interface HomeModel {
  user: string;
  /** When the view was built (ms since the epoch): ages and time left are counted from it. */
  now: number;
  /** DEFAULT_SITE: what "Recent changes" and "Controller" are about. */
  site: string;
  /** A line for this user above everything (what their last click on Home led to). */
  notice?: string;
  /** Pending requests this user may approve, soonest to expire first: one page of them, and how many in all. */
  waiting: { requests: ChangeRequest[]; total: number; page: number };
  /** The user's own requests, newest first, and how many they have in all. */
  mine: { requests: ChangeRequest[]; total: number };
  /** The last finished changes on the site, newest first. */
  recent: ChangeRequest[];
  /** Undefined: the controller did not answer in time to say. */
  controller?: ControllerStatus;
  /** A fleet's consoles, one section each in place of the Controller section; unset: one console. */
  consoles?: readonly ConsoleRow[];
  /** Break-glass changes owing their review (overdue first is the reviewers' list, soonest due first). */
  reviews?: readonly { request: ChangeRequest; overdue: boolean }[];
  /** Changes approved outside their window, waiting for it (Run now, Cancel). */
  scheduled?: readonly ChangeRequest[];
  /** Changes that revert themselves at a deadline (time left, Keep, Revert now). */
  pendingReverts?: readonly PendingRevert[];
  /** Names of the offline devices; undefined: not known (no answer in time, or not asked). */
  offlineDevices?: string[];
  quickActions: QuickAction[];
  /** APPROVERS as configured (users and groups); empty: anyone but the requester. */
  approvers: string[];
  /** Thread links by `channel/ts`. */
  links: ReadonlyMap<string, string>;
}

const plain = (text: string): types.PlainTextElement => ({ type: 'plain_text', text });
const section = (text: string): types.SectionBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: clip(text, LIMITS.sectionText) },
});
const context = (text: string): types.ContextBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: clip(text, LIMITS.contextText) }],
});
const header = (text: string): types.HeaderBlock => ({
  type: 'header',
  text: plain(clip(text, LIMITS.headerText)),
});

/** "5 min", "2 h 10 min", "3 d 4 h": a duration as a person reads it. */
export function duration(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

function linkOf(model: HomeModel, request: ChangeRequest): string | undefined {
  return request.message ? model.links.get(`${request.message.channel}/${request.message.ts}`) : undefined;
}

/** `in #ops · thread`: where to read the request in the channel. */
function where(model: HomeModel, request: ChangeRequest): string {
  const channel = request.message?.channel ?? request.channel;
  const parts = [channel ? `in ${channelMention(channel)}` : 'from no channel'];
  if (request.message) parts.push(linked('thread', linkOf(model, request)));
  return parts.join(' · ');
}

function waitingItem(model: HomeModel, request: ChangeRequest): types.KnownBlock[] {
  const left = Date.parse(request.expiresAt) - model.now;
  const age = model.now - Date.parse(request.createdAt);
  const text = [
    `*${mrkdwn(humanize(request.tool))}* on ${code(request.site)} · :hourglass_flowing_sand: ${duration(left)} left`,
    `> ${summaryText(request, 300)}`,
    `by ${actorText(request.requester)} ${where(model, request)} · asked ${duration(age)} ago (${slackDate(request.createdAt)}) · \`${request.id}\``,
  ].join('\n');
  return [
    section(text),
    decisionActions(request, `home-decide-${request.id}`, 'Read the whole preview in the channel first.'),
  ];
}

function waitingBlocks(model: HomeModel): types.KnownBlock[] {
  const { requests, total, page } = model.waiting;
  const blocks: types.KnownBlock[] = [header(`Waiting for you (${total})`)];
  if (total === 0) {
    blocks.push(context('Nothing waits for your approval.'));
    return blocks;
  }
  blocks.push(
    context(
      'Approve runs the exact change of the preview in the channel, once (it is checked again first); the channel message is updated too.',
    ),
  );
  for (const request of requests.slice(0, WAITING_PAGE_SIZE)) blocks.push(...waitingItem(model, request));
  const pages = Math.ceil(total / WAITING_PAGE_SIZE);
  if (pages > 1) {
    const first = page * WAITING_PAGE_SIZE + 1;
    const last = Math.min(total, first + WAITING_PAGE_SIZE - 1);
    const buttons: types.Button[] = [];
    if (page > 0) {
      buttons.push({
        type: 'button',
        action_id: `${HOME_PAGE_ACTION}_prev`,
        text: plain('‹ Previous'),
        value: String(page - 1),
      });
    }
    if (page < pages - 1) {
      buttons.push({
        type: 'button',
        action_id: `${HOME_PAGE_ACTION}_next`,
        text: plain('Next ›'),
        value: String(page + 1),
      });
    }
    blocks.push(context(`Showing ${first}–${last} of ${total}, soonest to expire first.`));
    blocks.push({ type: 'actions', block_id: 'home-pages', elements: buttons });
  }
  return blocks;
}

/** Lines in as few sections as the per-section limit allows. */
function lineSections(lines: readonly string[]): types.SectionBlock[] {
  const sections: types.SectionBlock[] = [];
  let chunk: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (chunk.length > 0 && size + line.length + 1 > LIMITS.sectionText) {
      sections.push(section(chunk.join('\n')));
      chunk = [];
      size = 0;
    }
    chunk.push(line);
    size += line.length + 1;
  }
  if (chunk.length > 0) sections.push(section(chunk.join('\n')));
  return sections;
}

const LINE_MAX = 600;

function mineBlocks(model: HomeModel): types.KnownBlock[] {
  const { requests, total } = model.mine;
  const blocks: types.KnownBlock[] = [header(`Your requests (${total})`)];
  if (total === 0) {
    blocks.push(context('You have asked for no changes yet. The quick actions below open a form.'));
    return blocks;
  }
  const lines = requests.slice(0, MINE_SHOWN).map((request) => {
    const state =
      request.state === 'pending'
        ? `pending, ${duration(Date.parse(request.expiresAt) - model.now)} left`
        : request.state;
    const by = request.approver ? ` · approved by ${actorText(request.approver)}` : '';
    return clip(
      `${STATE_EMOJI[request.state]} *${mrkdwn(humanize(request.tool))}* · ${state}${by} · ${summaryText(request, 120)} · ${slackDate(request.createdAt)} · ${where(model, request)} · \`${request.id}\``,
      LINE_MAX,
    );
  });
  blocks.push(...lineSections(lines));
  if (total > MINE_SHOWN) {
    blocks.push(context(`${total - MINE_SHOWN} more: \`/net changes user=me\` lists them all.`));
  }
  return blocks;
}

/**
 * "Scheduled changes": approved outside their policy window, each with when it runs,
 * Run now (the bot checks that the policy allows it) and Cancel.
 */
/** Break-glass changes owing their review, overdue ones marked, each with its Reviewed button. */
function reviewBlocks(reviews: NonNullable<HomeModel['reviews']>): types.KnownBlock[] {
  if (reviews.length === 0) return [];
  const blocks: types.KnownBlock[] = [header('Break-glass reviews')];
  for (const { request, overdue } of reviews.slice(0, SCHEDULED_SHOWN)) {
    const glass = request.breakGlass;
    if (!glass) continue;
    const due = `${overdue ? ':red_circle: *overdue* since' : 'due'} ${slackDate(glass.reviewDueAt)}`;
    blocks.push(
      section(
        clip(
          `:rotating_light: *${mrkdwn(humanize(request.tool))}* by ${actorText(request.requester)} · ${mrkdwn(glass.reason)} · review ${due} by ${glass.reviewers.map((id) => (id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`)).join(', ')} · \`${request.id}\``,
          LINE_MAX,
        ),
      ),
      {
        type: 'actions',
        block_id: `home-review-${request.id}`,
        elements: [
          { type: 'button', action_id: REVIEW_BREAKGLASS_ACTION, text: plain('Reviewed'), value: request.id },
        ],
      },
    );
  }
  if (reviews.length > SCHEDULED_SHOWN)
    blocks.push(context(`${reviews.length - SCHEDULED_SHOWN} more break-glass reviews are not shown.`));
  return blocks;
}

function scheduledBlocks(model: HomeModel): types.KnownBlock[] {
  const scheduled = model.scheduled ?? [];
  if (scheduled.length === 0) return [];
  const blocks: types.KnownBlock[] = [header('Scheduled changes')];
  for (const request of scheduled.slice(0, SCHEDULED_SHOWN)) {
    const window = request.assessment?.window ? ` · window ${code(request.assessment.window.name)}` : '';
    const when = request.scheduledFor ? slackDate(request.scheduledFor) : 'its next opening';
    blocks.push(
      section(
        clip(
          `${STATE_EMOJI[request.state]} *${mrkdwn(humanize(request.tool))}* · runs ${when}${window} · ${summaryText(request, 120)} · asked by ${actorText(request.requester)} · ${where(model, request)} · \`${request.id}\``,
          LINE_MAX,
        ),
      ),
      {
        type: 'actions',
        block_id: `home-scheduled-${request.id}`,
        elements: [
          { type: 'button', action_id: RUN_SCHEDULED_ACTION, text: plain('Run now'), value: request.id },
          { type: 'button', action_id: CANCEL_ACTION, text: plain('Cancel'), value: request.id },
        ],
      },
    );
  }
  if (scheduled.length > SCHEDULED_SHOWN)
    blocks.push(context(`${scheduled.length - SCHEDULED_SHOWN} more scheduled changes are not shown.`));
  blocks.push(
    context('Run now runs a change before its window only if the policy allows it at that moment.'),
  );
  return blocks;
}

function recentBlocks(model: HomeModel): types.KnownBlock[] {
  const blocks: types.KnownBlock[] = [header(`Recent changes on ${model.site}`)];
  if (model.recent.length === 0) {
    blocks.push(context('No change has run on this site yet.'));
    return blocks;
  }
  const lines = model.recent.slice(0, RECENT_SHOWN).map((request) => {
    const approver = request.approver ? `, approved by ${actorText(request.approver)}` : '';
    const when = slackDate(request.decidedAt ?? request.createdAt);
    return clip(
      `${STATE_EMOJI[request.state]} *${mrkdwn(humanize(request.tool))}* · ${request.state} · ${summaryText(request, 120)} · asked by ${actorText(request.requester)}${approver} · ${when} · ${where(model, request)} · \`${request.id}\``,
      LINE_MAX,
    );
  });
  blocks.push(...lineSections(lines));
  // Revert for the recent changes that can be undone (the button proposes the undoing change).
  const revertible = model.recent
    .slice(0, RECENT_SHOWN)
    .filter((request) => request.state === 'succeeded' && revertability(request).ok)
    .slice(0, 5);
  if (revertible.length > 0) {
    blocks.push({
      type: 'actions',
      block_id: 'home-revert',
      elements: revertible.map((request) => ({
        type: 'button' as const,
        action_id: REVERT_ACTION,
        text: plainText(`Revert ${humanize(request.tool).toLowerCase()} ${request.id.slice(0, 7)}`, 75),
        value: request.id,
      })),
    });
  }
  blocks.push(
    context(
      `${code('/net changes state=finished')} lists every finished change; ${code('/net change <id>')} shows one.`,
    ),
  );
  return blocks;
}

const KIND: Record<NonNullable<ControllerStatus['kind']>, string> = {
  'unifi-os': 'UniFi OS console',
  'self-hosted': 'self-hosted Network application',
  cloud: 'through the cloud connector',
};

function controllerBlocks(model: HomeModel): types.KnownBlock[] {
  const status = model.controller;
  const reach = !status
    ? ':large_yellow_circle: no answer yet (checking)'
    : status.reachable
      ? ':large_green_circle: reachable'
      : ':red_circle: not reachable';
  const kind = status?.kind ? KIND[status.kind] : status?.apiType === 'cloud' ? 'cloud' : 'not known yet';
  const version = status?.version ? ` · Network ${mrkdwn(status.version)}` : '';
  const blocks: types.KnownBlock[] = [
    header('Controller'),
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Status*\n${reach}` },
        { type: 'mrkdwn', text: `*Controller*\n${kind}${version}` },
        { type: 'mrkdwn', text: `*Site*\n${code(model.site)}` },
        {
          type: 'mrkdwn',
          text: `*Last successful read*\n${status?.lastReadAt ? slackDate(status.lastReadAt) : 'none since the bot started'}`,
        },
      ],
    },
  ];
  if (status && !status.reachable && status.error)
    blocks.push(context(`:warning: ${mrkdwn(clip(status.error, 500))}`));
  blocks.push(...controllerApisBlocks(status?.apis));
  const offline = model.offlineDevices;
  if (offline !== undefined) {
    const names = offline.map((name) => mrkdwn(name)).join(', ');
    blocks.push(
      section(
        offline.length === 0
          ? '*Offline devices*\n:large_green_circle: none'
          : `*Offline devices (${offline.length})*\n:red_circle: ${names}`,
      ),
    );
  }
  return blocks;
}

function quickActionBlocks(model: HomeModel): types.KnownBlock[] {
  if (model.quickActions.length === 0) return [];
  return [
    header('Quick actions'),
    {
      type: 'actions',
      block_id: 'home-quick',
      elements: model.quickActions.slice(0, LIMITS.actionsElements).map((action) => ({
        type: 'button',
        action_id: `${HOME_FORM_ACTION}:${action.tool}`,
        text: plain(clip(action.label, LIMITS.buttonText)),
        value: action.tool,
      })),
    },
    context('Each opens a form; the preview is posted in the channel you pick, and runs only once approved.'),
  ];
}

function approversLine(approvers: readonly string[]): string {
  if (approvers.length === 0) return 'Approvers: anyone but the requester (APPROVERS is not set).';
  const names = approvers.map((id) => (id.startsWith('S') ? `<!subteam^${id}>` : mention(id)));
  return `Approvers: ${names.join(', ')}.`;
}

/**
 * One user's App Home: what waits for their approval (with Approve and Cancel), their own
 * requests, the last finished changes on the site, the controller, and quick actions. It stays
 * within Slack's 100 blocks for any number of requests: "Waiting for you" pages by ten, the
 * other lists are capped and say where the rest is.
 */
export function homeView(model: HomeModel): types.HomeView {
  const blocks: types.KnownBlock[] = [
    header('NetOps'),
    context(
      `Site ${code(model.site)} · updated ${slackDate(new Date(model.now).toISOString())} · ${approversLine(model.approvers)}`,
    ),
    {
      type: 'actions',
      block_id: 'home-top',
      elements: [
        { type: 'button', action_id: HOME_REFRESH_ACTION, text: plain('Refresh'), value: 'refresh' },
      ],
    },
  ];
  if (model.notice) blocks.push(section(model.notice));
  const parts = [
    reviewBlocks(model.reviews ?? []),
    waitingBlocks(model),
    scheduledBlocks(model),
    pendingRevertBlocks(model.pendingReverts ?? []),
    mineBlocks(model),
    recentBlocks(model),
    model.consoles === undefined ? controllerBlocks(model) : consolesBlocks(model.consoles),
    quickActionBlocks(model),
  ];
  for (const part of parts) {
    if (part.length === 0) continue;
    blocks.push({ type: 'divider' }, ...part);
  }
  return {
    type: 'home',
    callback_id: HOME_CALLBACK,
    blocks: blocks.slice(0, LIMITS.viewBlocks),
  };
}
