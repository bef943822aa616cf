import { approverText, CONSOLE_REQUESTER_PREFIX, isConsoleActor } from '../approvals/console-requester.js';
import {
  type ChangesPage,
  eventDetail,
  listChanges,
  requestSummary,
  showChange,
} from '../approvals/history.js';
import type { Actor, ChangeRequest } from '../approvals/types.js';
import { stepLines } from '../changes/change-set.js';
import { LIST_CHANGES } from '../commands/history.js';
import type { ParsedCommand } from '../commands/parse-command-line.js';
import { NotSupportedError } from '../errors.js';
import { render, renderObject, renderTable } from '../format/plain-text.js';
import { renderPreview } from '../format/preview-text.js';
import type { ChangeReader, RequestHistory } from '../store/types.js';

/** What the history commands need from the console: the store, read-only, and the tool names. */
export interface HistoryDeps {
  changes?: ChangeReader;
  tools: readonly string[];
  width?: number;
  /** `--ids`: the tables show their ids even when the width is short. */
  showIds?: boolean;
  now?: () => number;
}

const minute = (iso: string | undefined) => (iso ? `${iso.slice(0, 16).replace('T', ' ')}Z` : '');

/** Who, in a table cell: a console operator as `alex (console)`, anyone else by name. */
function whoText(actor: Actor | undefined): string {
  if (!actor) return '';
  if (isConsoleActor(actor)) return `${actor.userId.slice(CONSOLE_REQUESTER_PREFIX.length)} (console)`;
  return actor.name ?? actor.userId;
}

function row(request: ChangeRequest): Record<string, unknown> {
  return {
    id: request.id,
    state: request.state,
    site: request.site,
    requested_by: whoText(request.requester),
    approved_by: whoText(request.approver),
    created: minute(request.createdAt),
    change: requestSummary(request),
  };
}

/** The layout of the changes table: the id is what a row is; the change moves under it when narrow. */
const LISTING = { key: 'id', detail: 'change', identifiers: ['requested_by', 'approved_by', 'change'] };

function pageText(page: ChangesPage, width: number | undefined): string {
  const what = page.criteria.length > 0 ? ` (${page.criteria.join(', ')})` : '';
  if (page.total === 0) return `no change requests${what}.`;
  const heading = `${page.total} change request(s)${what}, newest first; page ${page.page} of ${page.pages}:`;
  const rows =
    page.requests.length > 0
      ? renderTable(page.requests.map(row), { ...LISTING, ...(width === undefined ? {} : { width }) })
      : '(no rows on this page)';
  const next = page.page < page.pages ? `\nnext: changes … page=${page.page + 1}` : '';
  return `${heading}\n${rows}${next}`;
}

function historyText(found: RequestHistory, width: number | undefined, showIds: boolean): string {
  const { request, events } = found;
  const fields: Record<string, unknown> = {
    id: request.id,
    state: request.state,
    tool: request.tool,
    site: request.site,
    requested_by: request.requester.name ?? request.requester.userId,
    approved_by: approverText(request.approver),
    cancelled_by: request.cancelledBy ? (request.cancelledBy.name ?? request.cancelledBy.userId) : undefined,
    channel: request.channel,
    created: request.createdAt,
    expires: request.expiresAt,
    decided: request.decidedAt,
    preview_hash: request.previewHash.slice(0, 8),
    replaces: request.replaces,
    superseded_by: request.supersededBy,
    // A step's own request names its set.
    step_of: request.setOf ? `${request.setOf} (step ${request.setStep ?? '?'})` : undefined,
  };
  const head = renderObject(
    Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    width === undefined ? {} : { width },
  );
  const preview =
    typeof request.preview === 'object' && request.preview !== null && !Array.isArray(request.preview)
      ? renderPreview(request.preview as Record<string, unknown>, width === undefined ? {} : { width })
      : `preview: ${JSON.stringify(request.preview)}`;
  const journal = renderTable(
    events.map((event) => ({
      seq: event.seq,
      at: event.at,
      event: event.type,
      by: event.actor.name ?? event.actor.userId,
      detail: eventDetail(event),
    })),
    { detail: 'detail', identifiers: ['by', 'detail'], ...(width === undefined ? {} : { width }) },
  );
  // A set's steps, each with what became of it and the request that ran it.
  const steps = request.set
    ? [`steps (on_failure=${request.set.onFailure}):\n${stepLines(request.set).join('\n')}`]
    : [];
  const parts = [head, ...steps, preview, `journal:\n${journal}`];
  if (request.state === 'succeeded') {
    parts.push(
      `result:\n${render(request.result, { ...(width === undefined ? {} : { width }), ...(showIds ? { ids: true } : {}) })}`,
    );
  }
  if (request.error) {
    const controller = request.error.controllerCode ? ` (${request.error.controllerCode})` : '';
    parts.push(`error: ${request.error.code}: ${request.error.message}${controller}`);
  }
  return parts.join('\n\n');
}

/**
 * `changes …` and `change <id>`: the same questions as Slack's `/net changes`, over the same store,
 * read-only (a console beside the bot never opens its journal for append). Text, or JSON.
 */
export async function historyAnswer(
  parsed: ParsedCommand,
  json: boolean,
  deps: HistoryDeps,
): Promise<string> {
  if (!deps.changes) throw new NotSupportedError('change history needs the store (DATA_DIR or DATABASE_URL)');
  if (parsed.command === LIST_CHANGES) {
    const page = await listChanges(deps.changes, parsed, {
      now: (deps.now ?? Date.now)(),
      tools: deps.tools,
    });
    return json ? JSON.stringify(page, null, 2) : pageText(page, deps.width);
  }
  const found = await showChange(deps.changes, parsed);
  return json ? JSON.stringify(found, null, 2) : historyText(found, deps.width, deps.showIds === true);
}
