import type { webApi } from '@slack/bolt';
import type { Approvals } from '../../approvals/approvals.js';
import type { ChangeTimers } from '../../changes/timers.js';
import type { Config } from '../../config.js';
import { settle, settledWithin } from '../../lib/settle-within.js';
import type { Logger } from '../../log.js';
import type { ConsolePort } from '../../tools/core/context.js';
import type { ControllerStatus, ToolContext } from '../../tools/core/define-tool.js';
import { firewallGeneration } from '../../tools/core/firewall-generation.js';
import type { ToolRegistry } from '../../tools/core/registry.js';
import type { QuickAction } from '../blocks/home.js';
import { consoleRows } from './console-rows.js';
import { HomeService } from './home.js';
import { HomeViewers } from './home-viewers.js';
import { Permalinks } from './permalinks.js';
import { Reminders } from './reminders.js';

/** What App Home and reminders are built from; the Slack front end hands its parts over. */
export interface AppHomeOptions {
  client: webApi.WebClient;
  approvals: Approvals;
  config: Config;
  logger: Logger;
  registry: ToolRegistry;
  context: ToolContext;
  controllerStatus: (site: string) => Promise<ControllerStatus>;
  /** The change timers, for App Home's temporary and pending-revert changes. */
  timers?: Pick<ChangeTimers, 'pending'>;
  /** A fleet's open alerts per console (the watcher's unresolved incidents); undefined: not watched. */
  openAlerts?: (console: string) => Promise<number | undefined>;
}

/** The running App Home and reminders. */
export interface AppHome {
  home: HomeService;
  reminders: Reminders;
  permalinks: Permalinks;
  stop(): void;
}

// The common writes, in the order the buttons show them; the firewall one follows the console's generation.
const QUICK: { tool: string; label: string; firewall?: 'legacy' | 'zone-based' }[] = [
  { tool: 'create_network', label: 'Create network' },
  { tool: 'create_firewall_rule', label: 'Create firewall rule', firewall: 'legacy' },
  { tool: 'create_firewall_policy', label: 'Create firewall policy', firewall: 'zone-based' },
  { tool: 'create_acl_rule', label: 'Create ACL rule' },
];

/** How long a Home build waits for each console's status before showing "checking". */
const STATUS_WAIT_MS = 2500;

/** How long a Home build waits to learn the site's firewall generation before offering both kinds. */
const GENERATION_WAIT_MS = 2000;

function fleetRows(options: AppHomeOptions, consoles: ConsolePort) {
  return () =>
    consoleRows({
      consoles,
      approvals: options.approvals,
      site: options.config.defaultSite,
      ...(options.openAlerts ? { openAlerts: options.openAlerts } : {}),
      waitMs: STATUS_WAIT_MS,
    });
}

/** Builds App Home (refreshed on every change this process makes) and the reminder poster. */
export function createAppHome(options: AppHomeOptions): AppHome {
  const { client, approvals, config, logger, registry, context } = options;
  const site = config.defaultSite;
  const permalinks = new Permalinks(client, logger);
  const quickActions = async (): Promise<QuickAction[]> => {
    const found = await settledWithin(settle(firewallGeneration(context.gateway, site)), GENERATION_WAIT_MS);
    const generation = found?.ok ? found.value : undefined;
    return QUICK.filter(
      (action) =>
        registry.get(action.tool) !== undefined &&
        (action.firewall === undefined || generation === undefined || action.firewall === generation),
    ).map(({ tool, label }) => ({ tool, label }));
  };
  const writeChannels = config.approvals.writeChannels;
  const home = new HomeService({
    client,
    approvals,
    viewers: new HomeViewers(context.store, logger),
    permalinks,
    logger,
    site,
    approvers: config.approvals.approvers,
    controllerStatus: options.controllerStatus,
    // The Controller section names what is down (list_devices, a cached read).
    offlineDevices: async (name) => {
      if (!registry.get('list_devices')) return [];
      const result = await registry.run(
        'list_devices',
        { site_id: name, state: 'offline', limit: 1 },
        context,
      );
      const offline = (result as { offline?: unknown }).offline;
      return Array.isArray(offline) ? offline.filter((v): v is string => typeof v === 'string') : [];
    },
    quickActions,
    ...(context.consoles?.fleet === true ? { consoleRows: fleetRows(options, context.consoles) } : {}),
    ...(options.timers ? { pendingReverts: () => options.timers?.pending() ?? Promise.resolve([]) } : {}),
    ...(writeChannels.length === 1 && writeChannels[0] ? { formChannel: writeChannels[0] } : {}),
  });
  const unsubscribe = approvals.onChange((request) => home.changed(request));
  const reminders = new Reminders(client, approvals, logger, {
    afterSeconds: config.approvals.remindSeconds,
    approvers: config.approvals.approvers,
  });
  return {
    home,
    reminders,
    permalinks,
    stop() {
      unsubscribe();
      home.stop();
    },
  };
}
