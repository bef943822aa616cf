import { z } from 'zod';
import { isBotError, ResourceNotFoundError } from '../errors.js';
import { clientRecordSchema } from '../gateway/records/client-record.js';
import {
  clientDpiRecordSchema,
  type DpiAppRow,
  type DpiCategoryRow,
  dpiCatalogueEntrySchema,
  siteDpiRecordSchema,
} from '../gateway/records/dpi-record.js';
import type { Gateway } from '../gateway/types.js';
import { normalizeMac } from '../lib/mac.js';
import type { Logger } from '../log.js';
import { intInRange, siteId } from './arg-types.js';
import { defineTool, type ToolDefinition } from './define-tool.js';
import {
  applicationsOf,
  BUNDLED_NAMES,
  COUNTERS_NOTE,
  catalogueKey,
  categoriesOf,
  type DpiNames,
  isoOf,
  NO_DATA,
  TIME_RANGES,
} from './dpi-model.js';

const timeRange = z
  .enum(TIME_RANGES, { error: `must be one of ${TIME_RANGES.join(', ')}` })
  .default('24h')
  .describe('Echoed only: the controller counts cumulatively');

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

/** What every DPI result starts with: the site, the echoed range, and that the counters are cumulative. */
function header(site: string, range: string) {
  return { site_id: site, time_range: range, counters: 'cumulative' as const, note: COUNTERS_NOTE };
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

const getDpiStatistics = defineTool({
  name: 'get_dpi_statistics',
  description: 'Traffic per application and per category (cumulative DPI counters)',
  access: 'read',
  example: 'time_range=7d',
  args: z.object({ site_id: siteId, time_range: timeRange }),
  async run({ site_id, time_range }, { gateway, logger }) {
    const [apps, cats, names] = await Promise.all([
      siteDpi(gateway, site_id, 'by_app'),
      siteDpi(gateway, site_id, 'by_cat'),
      loadNames(gateway, logger),
    ]);
    if (apps.appRows.length === 0) {
      return {
        ...header(site_id, time_range),
        has_data: false,
        message: NO_DATA,
        applications: [],
        categories: [],
        total_applications: 0,
        total_categories: 0,
      };
    }
    const applications = applicationsOf(apps.appRows, names);
    const categories = categoriesOf(cats.catRows, apps.appRows, names);
    return {
      ...header(site_id, time_range),
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
  async run({ site_id, limit, time_range }, { gateway, logger }) {
    const [apps, names] = await Promise.all([
      siteDpi(gateway, site_id, 'by_app'),
      loadNames(gateway, logger),
    ]);
    if (apps.appRows.length === 0) {
      return {
        ...header(site_id, time_range),
        has_data: false,
        message: NO_DATA,
        applications: [],
        total_applications: 0,
      };
    }
    const applications = applicationsOf(apps.appRows, names);
    return {
      ...header(site_id, time_range),
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
  example: 'client_mac=00:11:32:8a:bc:04',
  args: z.object({ site_id: siteId, client_mac: clientMac, time_range: timeRange }),
  async run({ site_id, client_mac, time_range }, { gateway, logger }) {
    const [records, names] = await Promise.all([
      gateway.classicRead(site_id, 'stat/stadpi', clientDpiRecordSchema, {
        body: { type: 'by_app', macs: [client_mac] },
      }),
      loadNames(gateway, logger),
    ]);
    // Filtered again: a controller that ignores `macs` answers every client.
    const record = records.items.find((r) => r.mac.toLowerCase() === client_mac);
    const rows = record?.by_app ?? [];
    const base = { ...header(site_id, time_range), client_mac };
    if (rows.length === 0) {
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
