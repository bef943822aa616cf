import { verificationText } from '../changes/describe.js';
import { ResourceNotFoundError, ValidationError } from '../errors.js';
import { isRecord } from '../lib/is-record.js';
import { suggestNames } from '../lib/suggest.js';
import { formatDuration } from '../policy/duration.js';
import type { JournalEvent } from '../store/journal-format.js';
import type { ChangeFilter, ChangeReader, RequestHistory } from '../store/types.js';
import { CHANGE_STATES, type ChangeRequest, type ChangeState } from './types.js';

/** Requests per page of `changes`. */
export const HISTORY_PAGE_SIZE = 20;

// `finished` is what "what changed" means: the runs that ended, whatever the outcome.
const STATE_GROUPS: Record<string, readonly ChangeState[]> = {
  finished: ['succeeded', 'failed', 'unknown'],
  open: ['pending', 'approved', 'executing'],
};
const KEYS = ['state', 'user', 'since', 'tool', 'page'] as const;
const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Who asks and what the front end knows: the clock, the tool names, and the asker (for `user=me`). */
export interface HistoryContext {
  now: number;
  tools: readonly string[];
  /** The asker's id (a Slack user), for `user=me`; unset in the console. */
  self?: string;
}

/** One page of `changes`: the requests, where the page is, and the criteria in words. */
export interface ChangesPage {
  requests: ChangeRequest[];
  total: number;
  page: number;
  pages: number;
  /** `state=pending`, `user=U…`, `since 2030-01-01T00:00:00Z`, … (empty: everything). */
  criteria: string[];
}

type Args = Record<string, string | string[]>;

const text = (value: string | string[] | undefined) =>
  value === undefined ? undefined : Array.isArray(value) ? value.join(',') : value;

function invalid(field: string, rule: string): ValidationError {
  return new ValidationError([{ field, rule }]);
}

function statesOf(value: string): ChangeState[] {
  const states = new Set<ChangeState>();
  for (const word of value.split(',').map((w) => w.trim().toLowerCase())) {
    if (word === '') continue;
    const group = STATE_GROUPS[word];
    if (group) {
      for (const state of group) states.add(state);
      continue;
    }
    if (!(CHANGE_STATES as readonly string[]).includes(word)) {
      throw invalid('state', `must be one or more of ${[...CHANGE_STATES, 'finished', 'open'].join(', ')}`);
    }
    states.add(word as ChangeState);
  }
  if (states.size === 0) throw invalid('state', 'is empty');
  return [...states];
}

/** `24h`, `30m`, `7d`, `2w`, or a date/time; the ISO time it stands for. */
function sinceOf(value: string, now: number): string {
  const duration = /^(\d{1,6})\s*([mhdw])$/i.exec(value.trim());
  if (duration) {
    const [, amount = '0', unit = 'h'] = duration;
    return new Date(now - Number(amount) * (UNITS[unit.toLowerCase()] ?? 0)).toISOString();
  }
  const at = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (Number.isNaN(at)) {
    throw invalid('since', 'must be a duration such as 30m, 24h, 7d or 2w, or a date such as 2030-01-31');
  }
  return new Date(at).toISOString();
}

/**
 * A user id from what was typed: `me`, a Slack mention (`<@U…>`, `<@U…|name>`), an id, or a name
 * (`@alice`, `alice`). Slack does not expand `@name` in slash commands without the escaping
 * option, and the bot has no scope to look names up, so a name is matched against the requesters
 * the store has seen.
 */
async function userOf(value: string, reader: ChangeReader, context: HistoryContext): Promise<string> {
  const word = value.trim();
  if (word.toLowerCase() === 'me') {
    if (!context.self) throw invalid('user', 'me works in Slack only; give a user id (U…) or a name');
    return context.self;
  }
  const mentioned = /^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/.exec(word)?.[1];
  if (mentioned) return mentioned;
  if (/^[UW][A-Z0-9]{2,}$/.test(word) || word.includes(':')) return word;
  const name = word.replace(/^@/, '').toLowerCase();
  if (name === '') throw invalid('user', 'is empty');
  for (const request of await reader.list({ limit: 1000 })) {
    if (request.requester.name?.toLowerCase() === name) return request.requester.userId;
  }
  throw invalid('user', `no change request by ${word} is known; give the user's id (U…) instead`);
}

function pageOf(value: string | undefined): number {
  if (value === undefined) return 1;
  if (!/^\d{1,6}$/.test(value.trim()) || Number(value) < 1)
    throw invalid('page', 'must be a whole number from 1');
  return Number(value);
}

function toolOf(value: string, tools: readonly string[]): string {
  const tool = value.trim().toLowerCase();
  if (tools.includes(tool)) return tool;
  const near = suggestNames(tool, tools);
  throw invalid(
    'tool',
    `unknown tool ${value}${near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : ''}`,
  );
}

/** `changes [state=…] [user=…] [since=…] [tool=…] [page=N]`: one page of requests, newest first. */
export async function listChanges(
  reader: ChangeReader,
  command: { args: Args; positionals: readonly string[] },
  context: HistoryContext,
): Promise<ChangesPage> {
  if (command.positionals.length > 0) {
    throw invalid(
      'arguments',
      `unexpected "${command.positionals.join(' ')}": changes takes key=value filters (change <id> shows one)`,
    );
  }
  for (const key of Object.keys(command.args)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      const near = suggestNames(key, KEYS);
      throw invalid(
        key,
        `is not a filter of changes (${near.length > 0 ? `did you mean ${near[0]}? ` : ''}filters: ${KEYS.join(', ')})`,
      );
    }
  }
  const filter: ChangeFilter = {};
  const criteria: string[] = [];
  const state = text(command.args.state);
  if (state !== undefined) {
    filter.state = statesOf(state);
    criteria.push(`state=${filter.state.join(',')}`);
  }
  const user = text(command.args.user);
  if (user !== undefined) {
    filter.requester = await userOf(user, reader, context);
    criteria.push(`user=${filter.requester}`);
  }
  const since = text(command.args.since);
  if (since !== undefined) {
    filter.since = sinceOf(since, context.now);
    criteria.push(`since ${filter.since.replace(/\.000Z$/, 'Z')}`);
  }
  const tool = text(command.args.tool);
  if (tool !== undefined) {
    filter.tool = toolOf(tool, context.tools);
    criteria.push(`tool=${filter.tool}`);
  }
  const page = pageOf(text(command.args.page));
  const total = await reader.count(filter);
  const pages = Math.max(1, Math.ceil(total / HISTORY_PAGE_SIZE));
  const requests = await reader.list({
    ...filter,
    limit: HISTORY_PAGE_SIZE,
    offset: (page - 1) * HISTORY_PAGE_SIZE,
  });
  return { requests, total, page, pages, criteria };
}

/** `change <id>`: one request with every journal entry about it. */
export async function showChange(
  reader: ChangeReader,
  command: { args: Args; positionals: readonly string[] },
): Promise<RequestHistory> {
  const id = (command.positionals[0] ?? text(command.args.id) ?? '').trim();
  if (id === '' || command.positionals.length > 1) {
    throw invalid('id', 'change takes one change request id, e.g. change cr_abc… (changes lists them)');
  }
  const found = await reader.history(id);
  if (!found) throw new ResourceNotFoundError('change request', id);
  return found;
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

const OPAQUE_ID = /^([0-9a-f]{24}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * The name a preview gives an id: its `names` map (id → name), or an object in it that holds the
 * id (`network_id`, `id`, `_id`) beside a `name`. Looked for a few levels deep only.
 */
function nameInPreview(preview: unknown, id: string, depth = 0): string | undefined {
  if (depth > 3) return undefined;
  if (Array.isArray(preview)) {
    for (const item of preview) {
      const name = nameInPreview(item, id, depth + 1);
      if (name) return name;
    }
    return undefined;
  }
  if (!isRecord(preview)) return undefined;
  const names = preview.names;
  if (isRecord(names) && typeof names[id] === 'string' && names[id] !== '') return names[id];
  const holds = Object.entries(preview).some(([key, value]) => value === id && /(^|_)id$/.test(key));
  if (holds && typeof preview.name === 'string' && preview.name !== '') return preview.name;
  for (const value of Object.values(preview)) {
    const name = nameInPreview(value, id, depth + 1);
    if (name) return name;
  }
  return undefined;
}

/**
 * An argument as a reader knows it: an id the request's preview names is shown by that name, as a
 * person would have typed it (`network_id=IoT`). A revert the bot made by itself carries ids only.
 */
function argumentText(value: unknown, preview: unknown): string {
  if (typeof value === 'string' && OPAQUE_ID.test(value)) return nameInPreview(preview, value) ?? value;
  return shown(value);
}

/** `create_network name=Lab vlan_id=40 …`: the tool and its arguments (the site is shown apart). */
export function requestSummary(request: ChangeRequest): string {
  // A change set is named by its title and the tools of its steps, in order.
  if (request.set) {
    const title = request.set.title ? ` "${request.set.title}"` : '';
    const steps = request.set.steps.map((step) => step.tool).join(', ');
    return `change_set${title} (${request.set.steps.length} steps: ${steps})`;
  }
  const args = Object.entries(request.args)
    .filter(([key]) => key !== 'site_id')
    .map(([key, value]) => `${key}=${argumentText(value, request.preview)}`);
  // The deadline a change asked for is part of what was asked (it is kept apart from the arguments).
  if (request.forSeconds !== undefined) args.push(`for=${formatDuration(request.forSeconds)}`);
  else if (request.revertAfterSeconds !== undefined && request.revertAfterRule === undefined)
    args.push(`revert_after=${formatDuration(request.revertAfterSeconds)}`);
  const step = request.setOf ? ` (step ${request.setStep ?? '?'} of ${request.setOf})` : '';
  return `${[request.tool, ...args].join(' ')}${step}`;
}

/** What one journal entry says beyond its type and actor, in a few words (plain text). */
export function eventDetail(event: JournalEvent): string {
  switch (event.type) {
    case 'created':
      return `${event.request.site}: ${requestSummary(event.request)}${event.request.breakGlass ? ` (break-glass: ${event.request.breakGlass.reason})` : ''}`;
    case 'message':
      return `preview posted in ${event.message.channel} (ts ${event.message.ts})`;
    case 'approved':
      return `preview ${event.previewHash.slice(0, 8)} approved${event.note ? ` (${event.note})` : ''}`;
    case 'executing':
      return event.before?.error
        ? `sent to the controller; before-image not read: ${event.before.error}`
        : event.before
          ? 'before-image read; sent to the controller'
          : 'sent to the controller';
    case 'succeeded':
      return event.deadline
        ? `done; reverts itself at ${event.deadline.dueAt} (${event.deadline.id})`
        : 'done';
    case 'failed':
      return `${event.stage === 'recheck' ? 'not run' : 'failed'}: ${event.error.code}: ${event.error.message}`;
    case 'cancelled':
      return 'cancelled, not run';
    case 'expired':
      return 'expired, not run';
    case 'superseded':
      return `replaced by ${event.supersededBy}${event.differences.length > 0 ? `: ${event.differences.slice(0, 3).join('; ')}` : ''}`;
    case 'outcome_unknown':
      return `the bot stopped while it was ${event.previous}; verify on the controller`;
    case 'reminded':
      return 'approvers reminded';
    case 'verified':
      return `after-image read: ${verificationText(event.verification) ?? ''}`;
    case 'reverted':
      return `reverted by ${event.revertedBy}`;
    case 'endorsed':
      return `preview ${event.previewHash.slice(0, 8)} approved; more approvals needed`;
    case 'scheduled':
      return `preview ${event.previewHash.slice(0, 8)} approved; scheduled for ${event.runAt} (its window)`;
    case 'deadline':
      return `automatic revert ${event.deadline.id} (due ${event.deadline.dueAt}): ${event.state}${event.note ? `: ${event.note}` : ''}`;
    case 'reviewed':
      return 'break-glass change reviewed';
    case 'rollout':
      return event.event === 'soaked'
        ? `wave ${event.wave ?? '?'} soaked${event.note ? `: ${event.note}` : ''}`
        : `stopped after a halt${event.note ? `: ${event.note}` : ''}; the done sites stay`;
    case 'set_step':
      return `step ${event.step}${event.console ? ` on ${event.console}/${event.site ?? '?'}` : ''}: ${event.status.replace('_', ' ')}${event.changeId ? ` (${event.changeId})` : ''}${event.revertId ? `, undone by ${event.revertId}` : ''}${event.error ? `: ${event.error.message}` : ''}`;
  }
}
