/**
 * Questions asked of every console the bot serves: which are reachable (and on what version and
 * API generation), and where a client is. Each console is asked in parallel, a few at a time, and
 * for at most the read budget: a console down or slow is named in the answer, never waited for.
 */
import { z } from 'zod';
import { clientTools } from '../clients/clients.js';
import { nonEmpty, siteId } from '../core/arg-types.js';
import type { ToolContext } from '../core/context.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import { consoleArg, consolesOf, FLEET_CONCURRENCY, sitesOf } from './consoles-of.js';
import { fanOut, reasonOf } from './fan-out.js';

const listConsoles = defineTool({
  name: 'list_consoles',
  description:
    'Every console the bot serves: reachable or not, Network version, API generation (official, or classic and v2), how it is reached',
  access: 'read',
  example: '',
  args: z.object({ site_id: siteId, console: consoleArg }),
  async run({ site_id, console }, context) {
    const { port, consoles } = consolesOf(context, console);
    const answers = await fanOut(
      consoles,
      async (entry) => {
        const gateway = port.gateway(entry.name);
        const site = sitesOf(entry, site_id)[0] ?? site_id;
        const status = await gateway.status(site);
        const info = status.reachable ? await gateway.console().catch(() => undefined) : undefined;
        return { status, info };
      },
      { timeoutMs: port.readBudgetMs, concurrency: FLEET_CONCURRENCY },
    );
    return answers.map((answer) => {
      const base = { console: answer.key.name, via: answer.key.via };
      if ('error' in answer)
        return { ...base, reachable: false, version: null, api: null, error: answer.error };
      const { status, info } = answer.value;
      return {
        ...base,
        reachable: status.reachable,
        version: info?.version ?? status.version ?? null,
        api: info === undefined ? null : info.official ? 'official' : 'classic and v2',
        error: status.reachable ? null : (status.error ?? 'not reachable'),
      };
    });
  },
});

const listClients: ToolDefinition | undefined = clientTools.find((tool) => tool.name === 'list_clients');

interface ClientRow {
  name: string;
  ip: string | null;
  mac: string;
  network: string | null;
  where: string;
}
type SiteAnswer = { site: string; clients: ClientRow[] } | { site: string; error: string };

const findClient = defineTool({
  name: 'find_client',
  description:
    'Where a client is across every console: by name, hostname, IP or MAC (part of one); consoles that did not answer are named',
  access: 'read',
  example: 'client=Galaxy-S23',
  args: z.object({
    site_id: siteId,
    client: nonEmpty('must be a name, IP or MAC').describe(
      'The client: name, hostname, IP or MAC (part of one)',
    ),
    console: consoleArg,
  }),
  async run({ site_id, client, console }, context) {
    const list = listClients;
    if (list === undefined) throw new Error('list_clients is not registered');
    const { port, consoles } = consolesOf(context, console);
    // One question per console, its sites asked together: a lookup across the fleet takes about
    // as long as its slowest console, not a queue of consoles × sites.
    const answers = await fanOut(
      consoles,
      async (entry) => {
        const scoped: ToolContext = { ...context, gateway: port.gateway(entry.name), console: entry.name };
        return Promise.all(
          sitesOf(entry, site_id).map(async (site): Promise<SiteAnswer> => {
            try {
              const args = list.args.parse({ site_id: site, search: client, limit: 50 });
              return { site, clients: ((await list.run(args, scoped)) as { clients: ClientRow[] }).clients };
            } catch (error) {
              return { site, error: reasonOf(error) };
            }
          }),
        );
      },
      { timeoutMs: port.readBudgetMs, concurrency: FLEET_CONCURRENCY },
    );
    const found: Record<string, unknown>[] = [];
    const unanswered: { console: string; site: string; error: string }[] = [];
    for (const answer of answers) {
      const name = answer.key.name;
      const sites: SiteAnswer[] =
        'error' in answer
          ? sitesOf(answer.key, site_id).map((site) => ({ site, error: answer.error }))
          : answer.value;
      for (const each of sites) {
        if ('error' in each) unanswered.push({ console: name, site: each.site, error: each.error });
        else
          for (const row of each.clients)
            found.push({
              console: name,
              site: each.site,
              name: row.name,
              ip: row.ip,
              mac: row.mac,
              network: row.network,
              where: row.where,
            });
      }
    }
    return { client, consoles_asked: consoles.length, found, unanswered };
  },
});

/** The fleet-wide reads. */
export const fleetTools = [listConsoles, findClient];
