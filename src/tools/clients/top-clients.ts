import { z } from 'zod';
import { byName } from '../../lib/collate.js';
import { findByIdOrName } from '../../lib/find-by-id-or-name.js';
import { networkRecordSchema } from '../../records/network-record.js';
import { type Coverage, WINDOW_MS } from '../../telemetry/index.js';
import { idOrName, intInRange, siteId } from '../core/arg-types.js';
import { defineTool, type ToolContext, type ToolDefinition } from '../core/define-tool.js';
import { clientLabel, type LiveClient } from '../core/live-targets.js';
import { liveClientRecords, networkOf } from './clients.js';

/** `top_clients window`: `now` is the controller's current rate; the others come from samples. */
export const TOP_WINDOWS = ['now', '5m', '1h', '24h'] as const;
export type TopWindow = (typeof TOP_WINDOWS)[number];

/** A rate in bytes per second as people read it (bits per second, decimal units). */
export function formatRate(bytesPerSecond: number): string {
  const bits = bytesPerSecond * 8;
  if (bits >= 1e9) return `${(bits / 1e9).toFixed(2)} Gbit/s`;
  if (bits >= 1e6) return `${(bits / 1e6).toFixed(1)} Mbit/s`;
  if (bits >= 1e3) return `${(bits / 1e3).toFixed(1)} kbit/s`;
  return `${Math.round(bits)} bit/s`;
}

const coverageSchema = z.object({
  window: z.string().describe('The window asked for'),
  from: z.string().optional().describe('Start of the covered span (ISO 8601)'),
  to: z.string().optional().describe('End of the covered span (ISO 8601)'),
  seconds: z.number().describe('Length of the covered span in seconds'),
  complete: z.boolean().describe('True when the span is the whole window'),
  covers: z.string().describe('The span in words, with the reason when it is shorter than the window'),
});

const topClientSchema = z.object({
  rank: z.number(),
  name: z.string().describe('Alias, else hostname, else MAC'),
  rate: z.string().describe('rx + tx as bits per second'),
  network: z.string().nullable(),
  ip: z.string().nullable(),
  mac: z.string(),
  online: z.boolean().describe('False for a client that left since it moved these bytes'),
  rx_bytes_per_s: z.number().describe('Bytes per second the client received (the controller’s rx)'),
  tx_bytes_per_s: z.number().describe('Bytes per second the client sent (the controller’s tx)'),
  rx_bytes: z.number().optional().describe('Bytes received over the covered span (windows only)'),
  tx_bytes: z.number().optional().describe('Bytes sent over the covered span (windows only)'),
});

/** What top_clients answers (its MCP output schema). */
export const topClientsOutput = z.object({
  site_id: z.string(),
  window: z.enum(TOP_WINDOWS),
  source: z.enum(['controller current rate', 'samples']).describe('Where the rates come from'),
  covers: z.string().describe('The span the rates cover, in words'),
  coverage: coverageSchema.optional(),
  network: z.string().optional().describe('The network the clients were filtered to'),
  clients: z.array(topClientSchema),
  total_clients: z.number().describe('Clients with traffic in the span (before the limit)'),
  note: z.string().optional(),
});
export type TopClientsAnswer = z.output<typeof topClientsOutput>;
export type TopClient = z.output<typeof topClientSchema>;

const num = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? value : 0);
const macOf = (client: Pick<LiveClient, 'mac'>) => client.mac.toLowerCase();

// The network a client is on: its network_id, or for records without one (a real case), its VLAN.
type Network = z.output<typeof networkRecordSchema>;
function onNetwork(client: LiveClient, network: Network): boolean {
  if (client.network_id)
    return client.network_id === network._id || client.network_id === network.external_id;
  return client.vlan !== undefined && client.vlan !== 0 && client.vlan === network.vlan;
}

async function networkNamed(context: ToolContext, site: string, ref: string): Promise<Network> {
  const networks = (await context.gateway.classicRead(site, 'rest/networkconf', networkRecordSchema)).items;
  return findByIdOrName(networks, ref, {
    resource: 'network',
    field: 'network_id',
    id: (n) => n._id,
    name: (n) => n.name,
    matchesId: (n, wanted) => n._id === wanted || n.external_id === wanted,
  });
}

/**
 * Who uses the most bandwidth: now (the controller's current rate per client), or over a window of
 * the bot's samples. The rows the Slack chart draws are the same clients, in the same order.
 */
export async function topClients(
  args: { site_id: string; window: TopWindow; network_id?: string | undefined; limit: number },
  context: ToolContext,
): Promise<TopClientsAnswer> {
  const site = args.site_id;
  const [clients, network, networks] = await Promise.all([
    // The same parsed records as list_clients and get_client (one parse per answer).
    context.gateway.classicRead(site, 'stat/sta', liveClientRecords).then((r) => r.items),
    args.network_id ? networkNamed(context, site, args.network_id) : Promise.resolve(undefined),
    // The networks `who` names clients by (a record without network_id is placed by its VLAN);
    // unreadable, each client's own network name is shown.
    context.gateway
      .classicRead(site, 'rest/networkconf', networkRecordSchema)
      .then((r) => r.items)
      .catch(() => []),
  ]);
  const byMac = new Map(clients.map((c) => [macOf(c), c]));
  const inScope = (mac: string) => {
    if (!network) return true;
    const client = byMac.get(mac);
    return client !== undefined && onNetwork(client, network);
  };
  const labelOf = (mac: string) => {
    const client = byMac.get(mac);
    return client ? clientLabel(client) : mac;
  };
  const row = (mac: string, rx: number, tx: number, extra: Partial<TopClient> = {}): TopClient => {
    const client = byMac.get(mac);
    // Rank, name and rate first: a narrow table (Slack, a terminal) cuts the columns on its right.
    return {
      rank: 0,
      name: client ? clientLabel(client) : mac,
      rate: formatRate(rx + tx),
      network: (client ? networkOf(client, networks)?.name : undefined) ?? client?.network ?? null,
      ip: client?.ip ?? null,
      mac,
      online: client !== undefined,
      rx_bytes_per_s: Math.round(rx),
      tx_bytes_per_s: Math.round(tx),
      ...extra,
    };
  };
  const base = {
    site_id: site,
    window: args.window,
    ...(network ? { network: network.name } : {}),
  };

  if (args.window === 'now') {
    // Numbers first; the rows (labels, formatted rates) only for the clients that make the list.
    const rates: Rate[] = [];
    for (const c of clients) {
      const mac = macOf(c);
      if (!inScope(mac)) continue;
      const rx = num(c['rx_bytes-r'] ?? c['wired-rx_bytes-r']);
      const tx = num(c['tx_bytes-r'] ?? c['wired-tx_bytes-r']);
      rates.push({ mac, rx, tx, total: Math.round(rx) + Math.round(tx) });
    }
    return {
      ...base,
      source: 'controller current rate',
      covers: 'now: the controller’s current rate per client (its own short average)',
      ...ranked(rates, args.limit, row, labelOf),
    };
  }

  if (!context.telemetry) {
    return {
      ...base,
      source: 'samples',
      covers: `no samples: this process does not sample the network, so ${args.window} cannot be answered`,
      clients: [],
      total_clients: 0,
      note: 'Windows come from the counters the bot samples while it runs (the Slack bot, `netops mcp`).',
    };
  }
  const answer = await context.telemetry.window(site, 'clients', args.window, WINDOW_MS[args.window]);
  const seconds = answer.coverage.seconds;
  const rates: Rate[] = [];
  if (seconds > 0)
    for (const [mac, { rx, tx }] of answer.totals) {
      if (!inScope(mac)) continue;
      rates.push({
        mac,
        rx: rx / seconds,
        tx: tx / seconds,
        total: Math.round(rx / seconds) + Math.round(tx / seconds),
        extra: { rx_bytes: Math.round(rx), tx_bytes: Math.round(tx) },
      });
    }
  return {
    ...base,
    source: 'samples',
    covers: answer.coverage.covers,
    coverage: answer.coverage satisfies Coverage,
    ...ranked(rates, args.limit, row, labelOf),
    ...(answer.untracked > 0
      ? { note: `${answer.untracked} clients beyond the sampler's limit are not counted` }
      : {}),
  };
}

/** One client's rates before it becomes a row; `total` is the rounded rx + tx the order uses. */
interface Rate {
  mac: string;
  rx: number;
  tx: number;
  total: number;
  extra?: Partial<TopClient>;
}

// Highest rate first; ties by name so the order is stable. Clients that moved nothing are left out.
// Only the returned rows need their order settled: the totals are sorted as numbers first, and the
// names are looked up and compared only for the clients that can make the list (those at or above
// the last returned total, its ties included). Both sorts are stable, so the rows and their order
// are those of one sort of every client by (total, name). At 50,000 clients that moved over an
// hour, comparing names for every tie cost more than the rest of the answer.
function ranked(
  rates: Rate[],
  limit: number,
  row: (mac: string, rx: number, tx: number, extra?: Partial<TopClient>) => TopClient,
  nameOf: (mac: string) => string,
): { clients: TopClient[]; total_clients: number } {
  const moving = rates.filter((r) => r.total > 0);
  moving.sort((a, b) => b.total - a.total);
  const last = moving[Math.min(limit, moving.length) - 1];
  let end = Math.min(limit, moving.length);
  while (last !== undefined && end < moving.length && moving[end]?.total === last.total) end += 1;
  const names = new Map<Rate, string>();
  const name = (r: Rate) => {
    let known = names.get(r);
    if (known === undefined) {
      known = nameOf(r.mac);
      names.set(r, known);
    }
    return known;
  };
  const head = moving.slice(0, end).sort((a, b) => b.total - a.total || byName(name(a), name(b)));
  return {
    clients: head.slice(0, limit).map((r, i) => ({ ...row(r.mac, r.rx, r.tx, r.extra), rank: i + 1 })),
    total_clients: moving.length,
  };
}

const topClientsTool = defineTool({
  name: 'top_clients',
  description: 'The clients using the most bandwidth: now (current rate) or over a window of samples',
  access: 'read',
  example: 'window=now limit=5',
  args: z.object({
    site_id: siteId,
    window: z
      .enum(TOP_WINDOWS, { error: `must be one of ${TOP_WINDOWS.join(', ')}` })
      .default('now')
      .describe(
        'now: the controller’s current rate; 5m, 1h, 24h: rates over that window of the bot’s samples (a shorter span is named as such)',
      ),
    network_id: idOrName('network').optional().describe('Only clients on this network (id or name)'),
    limit: intInRange(1, 100).default(10).describe('Clients to return at most'),
  }),
  output: topClientsOutput,
  run: (args, context) => topClients(args, context),
});

/** Who is eating the bandwidth. */
export const topClientsTools: ToolDefinition[] = [topClientsTool];

/** One line per client of the answer (at most `max`): its rate in every sample of the last hour. */
export interface TopClientsChartData {
  title: string;
  subtitle: string;
  lines: { name: string; points: { at: number; bytesPerSecond: number }[] }[];
}

/**
 * The data of the chart `/net top` posts beside the table: the answer's clients, in its order, with
 * their rates (rx + tx) in every sample interval of the last hour. Undefined when there is nothing
 * to draw (no samples in this process yet, or no client moved a byte).
 */
export async function topClientsChart(
  answer: TopClientsAnswer,
  context: ToolContext,
  max = 8,
): Promise<TopClientsChartData | undefined> {
  const clients = answer.clients.slice(0, max);
  if (!context.telemetry || clients.length === 0) return undefined;
  const macs = clients.map((c) => c.mac);
  const hour = await context.telemetry.window(
    answer.site_id,
    'clients',
    '1h',
    WINDOW_MS['1h'],
    new Set(macs),
  );
  if (hour.coverage.seconds === 0 || hour.coverage.from === undefined) return undefined;
  const rates = await context.telemetry.rates(
    answer.site_id,
    'clients',
    macs,
    Date.parse(hour.coverage.from),
  );
  return {
    title: `Top clients on ${answer.site_id} (${answer.window === 'now' ? 'by current rate' : `average over the last ${answer.window}`})`,
    subtitle: `rate per sample, ${hour.coverage.covers}`,
    lines: clients.map((client) => ({
      name: client.name,
      points: (rates.get(client.mac) ?? []).map((p) => ({ at: p.at, bytesPerSecond: p.rx + p.tx })),
    })),
  };
}
