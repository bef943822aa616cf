import { isBotError } from '../errors.js';
import type { Logger } from '../log.js';
import {
  LEGACY_BREAKGLASS_REVIEWS_KEY,
  OPEN_BREAKGLASS_REVIEW_PREFIX,
  openBreakGlassReviewIds,
} from '../model/change-request.js';
import type { ChangeReader, KeyValueStore } from '../store/types.js';
import { type TopClientsAnswer, topClientsChart } from '../tools/clients/top-clients.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import type { ObservedState } from './observe.js';
import type { Digest, DigestChart, Drift, Incident } from './types.js';

const DAY = 24 * 3_600_000;

/** What the digest is made from. */
export interface DigestSources {
  site: string;
  at: number;
  timeZone?: string;
  changes: ChangeReader;
  incidents: readonly Incident[];
  observed: ObservedState;
  drifts: readonly Drift[];
  registry: ToolRegistry;
  context: ToolContext;
  logger: Logger;
}

/** The last day in one structure: changes, drift, incidents, devices offline, top traffic, pending. */
export async function buildDigest(s: DigestSources): Promise<Digest> {
  const from = s.at - DAY;
  const notes: string[] = [];
  const down: string[] = [];
  // Asked side by side: the store and both traffic reads are independent, and the controller's
  // reads would otherwise wait one behind the other (a round trip each).
  const [since, pending, top, apps] = await Promise.all([
    s.changes.list({ since: new Date(from).toISOString() }),
    s.changes.list({ state: 'pending' }),
    readTool(s, 'top_clients', { site_id: s.site, window: '24h', limit: 5 }, notes, down),
    readTool(s, 'list_top_applications', { site_id: s.site, limit: 5 }, notes, down),
  ]);
  const changes = since.filter((r) => r.state !== 'pending');
  const overdue = await overdueReviewsAt(s.context.store, s.changes, s.at);
  return {
    site: s.site,
    from,
    to: s.at,
    ...(s.timeZone ? { timeZone: s.timeZone } : {}),
    changes: changes.map((r) => ({
      id: r.id,
      tool: r.tool,
      requester: r.requester.name ?? r.requester.userId,
      ...(r.approver ? { approver: r.approver.name ?? r.approver.userId } : {}),
      state: r.state,
      at: r.decidedAt ?? r.createdAt,
    })),
    drift: s.drifts
      .filter((d) => d.noticedAt >= from)
      .sort((a, b) => a.noticedAt - b.noticedAt)
      .map((d) => ({
        kind: d.kind,
        objectName: d.objectName,
        change: d.change,
        noticedAt: d.noticedAt,
        accepted: d.acceptedBy !== undefined,
      })),
    incidents: s.incidents
      .filter((i) => i.startedAt >= from || i.resolvedAt === undefined || i.resolvedAt >= from)
      .sort((a, b) => a.startedAt - b.startedAt)
      .map((i) => ({
        subject: i.subject,
        kind: i.kind,
        startedAt: i.startedAt,
        ...(i.resolvedAt !== undefined ? { resolvedAt: i.resolvedAt } : {}),
      })),
    offlineNow: s.observed.offline.map((mac) => s.observed.names[mac] ?? mac),
    topClients: rows(top, 'clients').map((c) => ({
      name: String(c.name ?? c.mac ?? '?'),
      bytes: Number(c.rx_bytes ?? 0) + Number(c.tx_bytes ?? 0),
    })),
    topApps: rows(apps, 'applications').map((a) => ({
      name: String(a.name ?? a.application ?? '?'),
      bytes: Number(a.total_bytes ?? 0),
    })),
    pendingApprovals: pending.map((r) => ({
      id: r.id,
      tool: r.tool,
      requester: r.requester.name ?? r.requester.userId,
    })),
    ...(overdue.length > 0 ? { overdueReviews: overdue } : {}),
    notes,
    ...(down[0] !== undefined ? { unreachable: down[0] } : {}),
  };
}

/** Break-glass changes whose review is overdue at `at` (marked in the store's data). */
export async function overdueReviewsAt(
  store: KeyValueStore,
  changes: ChangeReader,
  at: number,
): Promise<NonNullable<Digest['overdueReviews']>> {
  const ids = await Promise.all([
    store.keys(OPEN_BREAKGLASS_REVIEW_PREFIX),
    store.get<string[]>(LEGACY_BREAKGLASS_REVIEWS_KEY),
  ])
    .then(([keys, legacy]) => openBreakGlassReviewIds(keys, legacy))
    .catch(() => []);
  const overdue: NonNullable<Digest['overdueReviews']> = [];
  for (const id of ids) {
    const request = await changes.get(id);
    const glass = request?.breakGlass;
    if (!request || !glass || glass.reviewedBy || Date.parse(glass.reviewDueAt) > at) continue;
    overdue.push({
      id,
      tool: request.tool,
      requester: request.requester.name ?? request.requester.userId,
      reason: glass.reason,
      dueAt: glass.reviewDueAt,
    });
  }
  return overdue;
}

async function readTool(
  s: DigestSources,
  tool: string,
  args: Record<string, unknown>,
  notes: string[],
  down: string[],
): Promise<unknown> {
  try {
    return await s.registry.run(tool, args, s.context);
  } catch (error) {
    if (!isBotError(error)) throw error;
    notes.push(`${tool}: ${error.message}`);
    // The console did not answer (or refused the bot's key): the fleet digest names it unreadable.
    if (error.code === 'gateway_unavailable' || error.code === 'gateway_auth') down.push(error.message);
    return undefined;
  }
}

function rows(answer: unknown, field: string): Record<string, unknown>[] {
  const list = (answer as Record<string, unknown> | undefined)?.[field];
  return Array.isArray(list) ? (list as Record<string, unknown>[]) : [];
}

/**
 * The digest's chart: the top clients' rates over the last hour of samples, drawn by the one chart
 * module (src/topology/chart.ts). Undefined when there is nothing to draw.
 */
export async function digestChart(
  digest: Digest,
  registry: ToolRegistry,
  context: ToolContext,
  logger: Logger,
): Promise<DigestChart | undefined> {
  try {
    const answer = (await registry.run(
      'top_clients',
      { site_id: digest.site, window: '1h', limit: 5 },
      context,
    )) as TopClientsAnswer;
    const data = await topClientsChart(answer, context, 5);
    if (!data) return undefined;
    const { renderRateChartPng } = await import('../topology/chart.js');
    return { png: await renderRateChartPng(data), title: `${data.title}, ${data.subtitle}` };
  } catch (error) {
    logger.warn({ err: error }, 'watch: the digest chart could not be drawn');
    return undefined;
  }
}
