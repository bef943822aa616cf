import { z } from 'zod';
import { isBotError, ResourceNotFoundError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { normalizeMac } from '../../lib/mac.js';
import type { Logger } from '../../log.js';
import { clientRecordSchema } from '../../records/client-record.js';
import {
  clientDpiRecordSchema,
  type DpiAppRow,
  type DpiCategoryRow,
  dpiCatalogueEntrySchema,
  siteDpiRecordSchema,
} from '../../records/dpi-record.js';
import { clientAppKey, type SeriesKind, WINDOW_MS, type WindowAnswer } from '../../telemetry/index.js';
import { intInRange, nonEmpty, siteId } from '../core/arg-types.js';
import { defineTool, type ToolContext, type ToolDefinition } from '../core/define-tool.js';
import { resolveClient } from '../core/live-targets.js';
import { MISSING_PARAMS } from '../core/missing-values.js';
import {
  applicationsOf,
  BUNDLED_NAMES,
  COUNTERS_NOTE,
  catalogueKey,
  categoriesOf,
  type DpiNames,
  isoOf,
  NO_DATA,
  rowsOfTotals,
  TIME_RANGES,
  WINDOW_NOTE,
} from './dpi-model.js';

const timeRange = z
  .enum(TIME_RANGES, { error: `must be one of ${TIME_RANGES.join(', ')}` })
  .default('24h')
  .describe(
    "Window of the bot's samples of the DPI counters; a span shorter than asked (the bot started later) is named as such",
  );

const clientMac = z
  .string({ error: 'must be a MAC address' })
  .trim()
  .transform((value, ctx) => {
    const mac = normalizeMac(value);
    if (mac !== undefined) return mac;
    ctx.addIssue({ code: 'custom', message: 'must be a MAC address such as aa:bb:cc:dd:ee:ff' });
    return z.NEVER;
  })
  .describe('Client MAC (aa:bb:cc:dd:ee:ff, AA-BB-…, aabb.ccdd.eeff or aabbccddeeff)');

/**
 * What every DPI result starts with: the site, the range, and what the figures cover: a span of the
 * bot's samples (`counters: "window"`), or, before the first span, the controller's cumulative
 * counters, said so.
 */
function header(site: string, range: string, window: Windowed) {
  if (window.answer) {
    return {
      site_id: site,
      time_range: range,
      counters: 'window' as const,
      covers: window.answer.coverage.covers,
      coverage: window.answer.coverage,
      note: WINDOW_NOTE,
    };
  }
  const why = window.covers ? `; ${window.covers}` : '';
  return {
    site_id: site,
    time_range: range,
    counters: 'cumulative' as const,
    note: `${COUNTERS_NOTE}${why}`,
  };
}

/** The answer when the controller has no DPI counters yet: empty lists, and why. */
function noData(site: string, range: string, empty: Record<string, unknown>) {
  return { ...header(site, range, {}), has_data: false, message: NO_DATA, ...empty };
}

/** A window of the bot's samples, or why there is none (no sampler here, or no span yet). */
interface Windowed {
  answer?: WindowAnswer;
  covers?: string;
}

async function sampled(
  context: ToolContext,
  site: string,
  kind: SeriesKind,
  range: (typeof TIME_RANGES)[number],
): Promise<Windowed> {
  if (!context.telemetry) return {};
  const answer = await context.telemetry.window(site, kind, range, WINDOW_MS[range]);
  return answer.coverage.seconds > 0 ? { answer } : { covers: answer.coverage.covers };
}

/** `stat/sitedpi` rows of one kind; a POST, but a read (cached, retried). */
async function siteDpi(gateway: Gateway, site: string, type: 'by_app' | 'by_cat') {
  const records = (await gateway.classicRead(site, 'stat/sitedpi', siteDpiRecordSchema, { body: { type } }))
    .items;
  return {
    appRows: records.flatMap((r): DpiAppRow[] => r.by_app),
    catRows: records.flatMap((r): DpiCategoryRow[] => r.by_cat),
    lastUpdated: records[0]?.last_updated,
  };
}

// The catalogue is global and changes only with a controller upgrade, while the gateway's read
// cache lives seconds: a fetched catalogue is kept an hour per gateway (a failed fetch is not kept).
const CATALOGUE_TTL_MS = 3_600_000;
const catalogues = new WeakMap<Gateway, { expires: number; names: DpiNames }>();

/**
 * Names from the controller's Integration catalogue, laid over the bundled table. The catalogue
 * is cosmetic: without an API key, or on a controller without it, the bundled names serve.
 */
async function loadNames(gateway: Gateway, logger: Logger): Promise<DpiNames> {
  const kept = catalogues.get(gateway);
  if (kept && kept.expires > Date.now()) return kept.names;
  try {
    const [categories, applications] = await Promise.all([
      gateway.integrationGlobalList('dpi/categories', dpiCatalogueEntrySchema),
      gateway.integrationGlobalList('dpi/applications', dpiCatalogueEntrySchema),
    ]);
    const names = BUNDLED_NAMES.withOverrides(
      categories.items.map((c): [number, string] => [c.id, c.name]),
      applications.items.map((a): [number, string] => [catalogueKey(a), a.name]),
    );
    catalogues.set(gateway, { expires: Date.now() + CATALOGUE_TTL_MS, names });
    return names;
  } catch (error) {
    if (!isBotError(error)) throw error;
    logger.debug({ reason: error.message }, 'DPI catalogue unavailable; using the bundled names');
    return BUNDLED_NAMES;
  }
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const getDpiStatistics = defineTool({
  name: 'get_dpi_statistics',
  description: 'Traffic per application and per category (cumulative DPI counters)',
  access: 'read',
  example: 'time_range=7d',
  args: z.object({ site_id: siteId, time_range: timeRange }),
  async run({ site_id, time_range }, context) {
    const { gateway, logger } = context;
    const [apps, cats, names, window] = await Promise.all([
      siteDpi(gateway, site_id, 'by_app'),
      siteDpi(gateway, site_id, 'by_cat'),
      loadNames(gateway, logger),
      sampled(context, site_id, 'apps', time_range),
    ]);
    if (apps.appRows.length === 0) {
      return noData(site_id, time_range, {
        applications: [],
        categories: [],
        total_applications: 0,
        total_categories: 0,
      });
    }
    // A window counts what moved in its span; categories are then summed from its applications.
    const appRows = window.answer ? rowsOfTotals(window.answer.totals) : apps.appRows;
    const applications = applicationsOf(appRows, names);
    const categories = categoriesOf(window.answer ? [] : cats.catRows, appRows, names);
    return {
      ...header(site_id, time_range, window),
      has_data: true,
      last_updated: isoOf(apps.lastUpdated),
      total_bytes: applications.reduce((sum, a) => sum + a.total_bytes, 0),
      applications,
      categories,
      total_applications: applications.length,
      total_categories: categories.length,
    };
  },
});

const listTopApplications = defineTool({
  name: 'list_top_applications',
  description: 'The applications using the most bandwidth (cumulative DPI counters)',
  access: 'read',
  example: 'limit=5',
  args: z.object({
    site_id: siteId,
    limit: intInRange(1, 1000).default(10).describe('Applications to return at most'),
    time_range: timeRange,
  }),
  async run({ site_id, limit, time_range }, context) {
    const { gateway, logger } = context;
    const [apps, names, window] = await Promise.all([
      siteDpi(gateway, site_id, 'by_app'),
      loadNames(gateway, logger),
      sampled(context, site_id, 'apps', time_range),
    ]);
    if (apps.appRows.length === 0) {
      return noData(site_id, time_range, { applications: [], total_applications: 0 });
    }
    const applications = applicationsOf(
      window.answer ? rowsOfTotals(window.answer.totals) : apps.appRows,
      names,
    );
    return {
      ...header(site_id, time_range, window),
      has_data: true,
      last_updated: isoOf(apps.lastUpdated),
      // Shares are of all identified traffic, so the top N need not add up to 100.
      applications: applications.slice(0, limit),
      total_applications: applications.length,
    };
  },
});

const getClientDpi = defineTool({
  name: 'get_client_dpi',
  description: "One client's traffic per application, with each application's share",
  access: 'read',
  example: 'client="Apple TV"',
  // People name a client as list_clients shows it; `client_mac` stays for callers that
  // already pass a MAC. One of the two, resolved by the shared resolver.
  args: z
    .object({
      site_id: siteId,
      client: nonEmpty('must be a MAC, IP address, name or hostname')
        .optional()
        .describe('The client: MAC (any notation), IP address, name or hostname'),
      client_mac: clientMac.optional(),
      time_range: timeRange,
    })
    .superRefine((args, ctx) => {
      if (args.client === undefined && args.client_mac === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['client'],
          message: 'is required (or client_mac)',
          params: MISSING_PARAMS,
        });
      if (args.client !== undefined && args.client_mac !== undefined)
        ctx.addIssue({ code: 'custom', path: ['client'], message: 'give client or client_mac, not both' });
    }),
  async run({ site_id, client, client_mac: givenMac, time_range }, context) {
    const { gateway, logger } = context;
    // The catalogue and the samples do not depend on which client: read them while it is resolved.
    const namesRead = loadNames(gateway, logger);
    const windowRead = sampled(context, site_id, 'clientApps', time_range);
    // Awaited below; a client that cannot be resolved must not leave their failure unhandled.
    for (const read of [namesRead, windowRead]) read.catch(() => undefined);
    const resolved = givenMac ?? (await resolveClient({ gateway, site: site_id }, client ?? '')).mac;
    const client_mac = normalizeMac(resolved) ?? resolved.toLowerCase();
    const [records, names, window] = await Promise.all([
      gateway.classicRead(site_id, 'stat/stadpi', clientDpiRecordSchema, {
        body: { type: 'by_app', macs: [client_mac] },
      }),
      namesRead,
      windowRead,
    ]);
    // Filtered again: a controller that ignores `macs` answers every client.
    const record = records.items.find((r) => r.mac.toLowerCase() === client_mac);
    const cumulative = record?.by_app ?? [];
    // The client's own application keys of the window (`<mac>|<cat>:<app>`).
    const prefix = clientAppKey(client_mac, '', '').slice(0, -1);
    const rows =
      window.answer && cumulative.length > 0
        ? rowsOfTotals(
            new Map(
              [...window.answer.totals]
                .filter(([key]) => key.startsWith(prefix))
                .map(([key, value]) => [key.slice(prefix.length), value]),
            ),
          )
        : cumulative;
    const base = { ...header(site_id, time_range, cumulative.length > 0 ? window : {}), client_mac };
    if (cumulative.length === 0) {
      // stadpi answers the same empty list for an unknown MAC and for a client without DPI data:
      // the active client list tells them apart.
      const clients = await gateway.classicRead(site_id, 'stat/sta', clientRecordSchema);
      if (!clients.items.some((c) => c.mac.toLowerCase() === client_mac)) {
        throw new ResourceNotFoundError(
          'client',
          client_mac,
          `client ${client_mac} not found on site ${site_id}`,
        );
      }
      return {
        ...base,
        has_data: false,
        message: NO_DATA,
        total_tx_bytes: 0,
        total_rx_bytes: 0,
        total_bytes: 0,
        applications: [],
        total_applications: 0,
      };
    }
    const applications = applicationsOf(rows, names);
    const tx = applications.reduce((sum, a) => sum + a.tx_bytes, 0);
    const rx = applications.reduce((sum, a) => sum + a.rx_bytes, 0);
    return {
      ...base,
      has_data: true,
      last_updated: isoOf(record?.last_updated),
      total_tx_bytes: tx,
      total_rx_bytes: rx,
      total_bytes: tx + rx,
      applications,
      total_applications: applications.length,
    };
  },
});

/** Spec 4.8: DPI statistics from `stat/sitedpi` and `stat/stadpi`, named from the DPI catalogue. */
export const dpiTools: ToolDefinition[] = [getDpiStatistics, listTopApplications, getClientDpi];
