import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PartContext } from '../lib/context.js';
import { BenchController } from '../lib/controller.js';
import { inProcessBot } from '../lib/in-process.js';

/** The lookups 50 people send at once in the burst: what an outage brings to a channel. */
const LOOKUPS: { tool: string; args: Record<string, string> }[] = [
  { tool: 'list_vlans', args: {} },
  { tool: 'list_clients', args: {} },
  { tool: 'list_clients', args: { network_id: 'IoT' } },
  { tool: 'top_clients', args: {} },
  { tool: 'list_devices', args: {} },
  { tool: 'get_network_details', args: { network_id: 'IoT' } },
  { tool: 'list_firewall_zones', args: {} },
  { tool: 'list_firewall_policies', args: {} },
  { tool: 'get_subnet_info', args: { network_id: 'Guest' } },
  { tool: 'get_network_statistics', args: {} },
  { tool: 'get_dpi_statistics', args: {} },
];

export interface BurstRow {
  people: number;
  latencyMs: number;
  /** Requests the controller saw during the burst. */
  requests: number;
  /** Distinct resources (`METHOD path?query`, and the body of a POST read) among them: the floor. */
  distinct: number;
  /** Requests for a resource already asked for during the burst. */
  repeats: { resource: string; count: number }[];
  lookups: number;
  failed: number;
  /** Why lookups failed, once per distinct reason. */
  failures: string[];
  ms: number;
}

/**
 * 50 people send mixed lookups at once, to one freshly started bot (nothing cached): the controller
 * should see each distinct resource once, however many lookups need it. The
 * tools run in-process through the registry against the simulator behind the recording proxy.
 */
export async function runBurst(ctx: PartContext): Promise<BurstRow> {
  const latencyMs = ctx.options.readLatencyMs;
  const controller = await BenchController.start({ latencyMs });
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-bench-burst-'));
  const people = 50;
  try {
    const { app } = inProcessBot(controller, dataDir);
    try {
      const known = new Set(app.registry.list().map((t) => t.name));
      const lookups = LOOKUPS.filter((l) => known.has(l.tool));
      controller.clearRequests();
      const before = controller.sim.requests.length;
      const started = performance.now();
      const outcomes = await Promise.allSettled(
        Array.from({ length: people }, (_, i) => {
          const lookup = lookups[i % lookups.length] as (typeof lookups)[number];
          return app.registry.run(lookup.tool, lookup.args, app.context);
        }),
      );
      const ms = performance.now() - started;
      const counts = new Map<string, number>();
      // A POST read (stat/sitedpi) is a different resource for each body.
      for (const r of controller.sim.requests.slice(before)) {
        const query = new URLSearchParams(r.query).toString();
        const body = r.body === undefined || r.method === 'GET' ? '' : ` ${JSON.stringify(r.body)}`;
        const resource = `${r.method} ${r.path}${query ? `?${query}` : ''}${body}`;
        counts.set(resource, (counts.get(resource) ?? 0) + 1);
      }
      const row: BurstRow = {
        people,
        latencyMs,
        requests: controller.requests.length,
        distinct: counts.size,
        repeats: [...counts.entries()]
          .filter(([, n]) => n > 1)
          .map(([resource, count]) => ({ resource, count })),
        lookups: lookups.length,
        failed: outcomes.filter((o) => o.status === 'rejected').length,
        failures: [
          ...new Set(
            outcomes.flatMap((o, i) =>
              o.status === 'rejected'
                ? [
                    `${lookups[i % lookups.length]?.tool}: ${o.reason instanceof Error ? o.reason.message : String(o.reason)}`,
                  ]
                : [],
            ),
          ),
        ],
        ms,
      };
      ctx.progress(
        `burst: ${people} lookups (${lookups.length} kinds) → ${row.requests} controller requests for ${row.distinct} distinct resources in ${Math.round(ms)} ms`,
      );
      return row;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await controller.close();
  }
}
