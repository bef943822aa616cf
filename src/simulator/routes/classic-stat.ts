import { z } from 'zod';
import { classicOk, type Reply } from '../envelopes.js';
import type { Router } from '../router.js';
import type { DpiAppCounters, DpiCounters, SiteState } from '../state.js';
import { invalidPayload, parseOrThrow } from '../validation.js';
import { type Handler, namedSite, param, type RequestContext } from './context.js';
import { APPLICATION_VERSION } from './integration-core.js';

/** Registers `api/self/sites` and `api/stat/sites`. */
export function registerClassicSites(router: Router<Handler>): void {
  const self = (site: SiteState) => ({
    _id: site._id,
    name: site.name,
    desc: site.desc,
    attr_hidden_id: site.name,
    attr_no_delete: site.name === 'default',
    role: 'admin',
  });
  router
    .on('GET', '/api/self/sites', (ctx) => classicOk(ctx.state.sites.map(self)))
    .on('GET', '/api/stat/sites', (ctx) =>
      classicOk(
        ctx.state.sites.map((site) => ({
          ...self(site),
          num_new_alarms: 0,
          health: [
            {
              subsystem: 'wan',
              status: 'ok',
              num_gw: 1,
              gw_mac: site.devices.find((d) => d.type === 'udm')?.mac,
            },
            { subsystem: 'lan', status: 'ok', num_user: site.clients.filter((c) => c.is_wired).length },
            { subsystem: 'wlan', status: 'ok', num_user: site.clients.filter((c) => !c.is_wired).length },
          ],
        })),
      ),
    );
}

const macList = z.array(z.string().regex(/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/));
const deviceFilter = z.object({ macs: macList.optional() }).optional();

/** Registers the `stat/` reads: devices, clients, site and client DPI. */
export function registerClassicStat(router: Router<Handler>, version: string = APPLICATION_VERSION): void {
  const base = '/api/s/:site/stat';
  const devices = namedSite((ctx, site) => {
    const filter = parseOrThrow(deviceFilter, ctx.body, () => invalidPayload('macs'));
    const macs = filter?.macs?.map((mac) => mac.toLowerCase());
    return classicOk(macs ? site.devices.filter((device) => macs.includes(device.mac)) : site.devices);
  });
  router
    // What a session (no API key) reads the Network application's version from.
    .on(
      'GET',
      `${base}/sysinfo`,
      namedSite((_ctx, site) => classicOk([{ name: site.name, version, timezone: 'UTC' }])),
    )
    .on('GET', `${base}/device`, devices)
    .on('POST', `${base}/device`, devices)
    .on(
      'GET',
      `${base}/device-basic`,
      namedSite((_ctx, site) =>
        classicOk(
          site.devices.map(({ mac, state, adopted, type, model, name }) => ({
            mac,
            state,
            adopted,
            type,
            model,
            name,
          })),
        ),
      ),
    )
    .on(
      'GET',
      `${base}/device/:mac`,
      namedSite((ctx, site) =>
        classicOk(site.devices.filter((d) => d.mac === param(ctx, 'mac').toLowerCase())),
      ),
    )
    .on(
      'GET',
      `${base}/sta`,
      namedSite((_ctx, site) => classicOk(site.clients)),
    )
    .on(
      'GET',
      `${base}/sta/:mac`,
      namedSite((ctx, site) =>
        classicOk(site.clients.filter((c) => c.mac === param(ctx, 'mac').toLowerCase())),
      ),
    );
  for (const method of ['GET', 'POST']) {
    router
      .on(method, `${base}/sitedpi`, namedSite(siteDpi))
      .on(method, `${base}/stadpi`, namedSite(clientDpi));
  }
}

const dpiRequest = z.object({
  type: z.enum(['by_app', 'by_cat']).default('by_app'),
  cats: z.array(z.union([z.int(), z.string().regex(/^\d+$/).transform(Number)])).optional(),
  macs: macList.optional(),
});

// POST carries the JSON body; the GET variant (`?type=by_app`) is reported on some versions.
function dpiArgs(ctx: RequestContext) {
  const input = ctx.method === 'GET' ? { type: ctx.query.get('type') ?? undefined } : (ctx.body ?? {});
  return parseOrThrow(dpiRequest, input, (error) =>
    invalidPayload(String(error.issues[0]?.path[0] ?? 'type')),
  );
}

const counterFields = ({ rx_bytes, tx_bytes, rx_packets, tx_packets }: DpiCounters): DpiCounters => ({
  rx_bytes,
  tx_bytes,
  rx_packets,
  tx_packets,
});

function add(into: DpiCounters, from: DpiCounters): void {
  into.rx_bytes += from.rx_bytes;
  into.tx_bytes += from.tx_bytes;
  into.rx_packets += from.rx_packets;
  into.tx_packets += from.tx_packets;
}

interface AppTotal extends DpiAppCounters {
  known_clients: number;
  clients: ({ mac: string } & DpiCounters)[];
}

/** Site totals per app: the sum over clients plus traffic of departed clients. */
function siteAppTotals(site: SiteState): AppTotal[] {
  const totals = new Map<number, AppTotal>();
  const entry = (counters: DpiAppCounters): AppTotal => {
    const key = (counters.cat << 16) | counters.app;
    let total = totals.get(key);
    if (!total) {
      total = {
        app: counters.app,
        cat: counters.cat,
        rx_bytes: 0,
        tx_bytes: 0,
        rx_packets: 0,
        tx_packets: 0,
        known_clients: 0,
        clients: [],
      };
      totals.set(key, total);
    }
    return total;
  };
  for (const client of site.dpi.clients) {
    for (const counters of client.by_app) {
      const total = entry(counters);
      add(total, counters);
      total.known_clients += 1;
      total.clients.push({ mac: client.mac, ...counterFields(counters) });
    }
  }
  for (const counters of site.dpi.unattributed) add(entry(counters), counters);
  return [...totals.values()].sort((a, b) => a.cat - b.cat || a.app - b.app);
}

function byCategory(apps: readonly DpiAppCounters[]) {
  const categories = new Map<number, DpiCounters & { cat: number; apps: number[] }>();
  for (const app of apps) {
    let category = categories.get(app.cat);
    if (!category) {
      category = { cat: app.cat, apps: [], rx_bytes: 0, tx_bytes: 0, rx_packets: 0, tx_packets: 0 };
      categories.set(app.cat, category);
    }
    add(category, app);
    if (!category.apps.includes(app.app)) category.apps.push(app.app);
  }
  return [...categories.values()];
}

function siteDpi(ctx: RequestContext, site: SiteState): Reply {
  const args = dpiArgs(ctx);
  if (site.dpi.empty) return classicOk([]);
  const apps = siteAppTotals(site);
  const selected = args.cats ? apps.filter((app) => args.cats?.includes(app.cat)) : apps;
  const rows = args.type === 'by_app' ? { by_app: selected } : { by_cat: byCategory(apps) };
  return classicOk([{ ...rows, last_updated: site.dpi.lastUpdated, site_id: site._id }]);
}

function clientDpi(ctx: RequestContext, site: SiteState): Reply {
  const args = dpiArgs(ctx);
  if (site.dpi.empty) return classicOk([]);
  const macs = args.macs?.map((mac) => mac.toLowerCase());
  const clients = macs ? site.dpi.clients.filter((client) => macs.includes(client.mac)) : site.dpi.clients;
  return classicOk(
    clients.map((client) => ({
      mac: client.mac,
      ...(args.type === 'by_app'
        ? { by_app: client.by_app.map((app) => ({ app: app.app, cat: app.cat, ...counterFields(app) })) }
        : { by_cat: byCategory(client.by_app) }),
      last_updated: site.dpi.lastUpdated,
    })),
  );
}
