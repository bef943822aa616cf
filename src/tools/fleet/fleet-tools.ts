/**
 * Questions asked of every console the bot serves: which are reachable (and on what version and
 * API generation), and where a client is. Each console is asked in parallel, a few at a time, and
 * for at most the read budget: a console down or slow is named in the answer, never waited for.
 */
import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import { clientTools } from '../clients/clients.js';
import { siteId } from '../core/arg-types.js';
import type { ConsolePort, ConsoleSummary, ToolContext } from '../core/context.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import { fanOut } from './fan-out.js';

/** A context built without consoles (a test's, a script's) serves its one gateway as `default`. */
function onlyConsole(context: ToolContext): ConsolePort {
  const summary: ConsoleSummary = { name: 'default', labels: {}, via: 'single', sites: undefined };
  return {
    fleet: false,
    readBudgetMs: 8000,
    list: () => [summary],
    gateway(name) {
      if (name !== 'default')
        throw new ValidationError([{ field: 'console', rule: 'this bot serves one console, default' }]);
      return context.gateway;
    },
    channel: () => undefined,
  };
}

/** Every console, or the one a fleet-wide call names. */
function consolesOf(
  context: ToolContext,
  only: string | undefined,
): {
  port: ConsolePort;
  consoles: readonly ConsoleSummary[];
} {
  const port = context.consoles ?? onlyConsole(context);
  const all = port.list();
  if (only === undefined) return { port, consoles: all };
  port.gateway(only); // refuses a name not served, naming those that are
  return { port, consoles: all.filter((each) => each.name === only) };
}

/** The sites of a console a fleet-wide read looks at: those its entry lists, else the default. */
function sitesOf(entry: ConsoleSummary, fallback: string): readonly string[] {
  return entry.sites ?? [fallback];
}

const consoleArg = z
  .string({ error: 'must name a console' })
  .trim()
  .min(1, { error: 'must name a console' })
  .optional()
  .describe('Only this console (by name)');

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
      { timeoutMs: port.readBudgetMs },
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

const findClient = defineTool({
  name: 'find_client',
  description:
    'Where a client is across every console: by name, hostname, IP or MAC (part of one); consoles that did not answer are named',
  access: 'read',
  example: 'client=Galaxy-S23',
  args: z.object({
    site_id: siteId,
    client: z
      .string({ error: 'must be a name, IP or MAC' })
      .trim()
      .min(1, { error: 'must be a name, IP or MAC' })
      .describe('The client: name, hostname, IP or MAC (part of one)'),
    console: consoleArg,
  }),
  async run({ site_id, client, console }, context) {
    if (listClients === undefined) throw new Error('list_clients is not registered');
    const { port, consoles } = consolesOf(context, console);
    const places = consoles.flatMap((entry) => sitesOf(entry, site_id).map((site) => ({ entry, site })));
    const answers = await fanOut(
      places,
      async ({ entry, site }) => {
        const scoped: ToolContext = { ...context, gateway: port.gateway(entry.name), console: entry.name };
        const args = listClients.args.parse({ site_id: site, search: client, limit: 50 });
        return (await listClients.run(args, scoped)) as {
          clients: { name: string; ip: string | null; mac: string; network: string | null; where: string }[];
        };
      },
      { timeoutMs: port.readBudgetMs },
    );
    const found = answers.flatMap((answer) =>
      'error' in answer
        ? []
        : answer.value.clients.map((row) => ({
            console: answer.key.entry.name,
            site: answer.key.site,
            name: row.name,
            ip: row.ip,
            mac: row.mac,
            network: row.network,
            where: row.where,
          })),
    );
    const unanswered = answers.flatMap((answer) =>
      'error' in answer
        ? [{ console: answer.key.entry.name, site: answer.key.site, error: answer.error }]
        : [],
    );
    return { client, consoles_asked: consoles.length, found, unanswered };
  },
});

/** The fleet-wide reads. */
export const fleetTools = [listConsoles, findClient];
