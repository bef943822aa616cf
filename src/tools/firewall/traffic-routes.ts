import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { findByIdOrName } from '../../lib/find-by-id-or-name.js';
import { isIpv4OrCidr, isIpv6OrCidr } from '../../lib/ip.js';
import { type NetworkRecord, networkRecordSchema } from '../../records/network-record.js';
import {
  type StoredTrafficRule,
  storedTrafficRuleSchema,
  trafficRuleRecordSchema,
} from '../../records/traffic-rule-record.js';
import { confirm, dryRun, intInRange, nonEmpty, siteId, text, vlanId } from '../core/arg-types.js';
import { applyCreate, applyDelete, applyUpdate, fieldChanges, type NameOf } from '../core/crud-model.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import { trafficRouteChanges } from './changes.js';
import {
  assertSupported,
  buildTrafficRulePayload,
  createWarnings,
  needsNetworks,
  ROUTE_ACTIONS,
  ROUTE_PROTOCOLS,
  routeIssues,
  type TrafficRoute,
  targetDevices,
  toTrafficRoute,
} from './traffic-route-model.js';

// Never `rest/routing` (static routes) nor v2 `trafficroutes` (policy-based routing): the spec's
// allow/deny/shape routes are Traffic Management rules (DESIGN §6).
const RULES = 'trafficrules';
const NETWORKS = 'rest/networkconf';

const routeRef = nonEmpty('must be a route id or name').describe('Traffic route id (or its name)');
const port = intInRange(1, 65535);
const address = z
  .string({ error: 'must be an IP address or CIDR' })
  .trim()
  .refine((v) => isIpv4OrCidr(v, true) || isIpv6OrCidr(v, true), {
    error: 'must be an IP address or CIDR such as 203.0.113.0/24',
  });

interface SiteRules {
  /** The rules exactly as stored (a PUT sends one back whole). */
  stored: StoredTrafficRule[];
  networks: NetworkRecord[];
}

async function readNetworks(gateway: Gateway, site: string, fresh: boolean): Promise<NetworkRecord[]> {
  return (await gateway.classicRead(site, NETWORKS, networkRecordSchema, { fresh })).items;
}

async function readRules(gateway: Gateway, site: string, fresh = false): Promise<SiteRules> {
  const [rules, networks] = await Promise.all([
    gateway.v2Read(site, RULES, storedTrafficRuleSchema, { fresh }),
    readNetworks(gateway, site, fresh),
  ]);
  return { stored: rules.items, networks };
}

/** Names the networks a rule body refers to (`target_devices[].network_id`, `network_ids`). */
function networkNames(networks: readonly NetworkRecord[]): NameOf {
  return (id) => networks.find((n) => n._id === id)?.name;
}

/** A stored rule as the spec's route; a rule the schema cannot read is skipped like any odd record. */
function viewOf(stored: unknown, networks: readonly NetworkRecord[]): TrafficRoute | undefined {
  const parsed = trafficRuleRecordSchema.safeParse(stored);
  return parsed.success ? toTrafficRoute(parsed.data, networks) : undefined;
}

function findRule(rules: SiteRules, ref: string): { stored: StoredTrafficRule; view: TrafficRoute } {
  const readable = rules.stored.flatMap((stored) => {
    const view = viewOf(stored, rules.networks);
    return view ? [{ stored, view }] : [];
  });
  return findByIdOrName(readable, ref, {
    resource: 'traffic route',
    field: 'route_id',
    id: (r) => r.view.id,
    name: (r) => r.view.name,
  });
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listTrafficRoutes = defineTool({
  name: 'list_traffic_routes',
  description: 'List the traffic routes (allow, deny and bandwidth-limit rules)',
  access: 'read',
  example: '',
  // `network IoT (VLAN 20)`, `Facebook (1572867)`: names a reader copies, never cut.
  identifierColumns: ['applies_to', 'applications', 'match_criteria'],
  args: z.object({ site_id: siteId }),
  async run({ site_id }, { gateway }) {
    const rules = await readRules(gateway, site_id);
    return rules.stored.flatMap((stored) => viewOf(stored, rules.networks) ?? []);
  },
});

const createTrafficRoute = defineTool({
  name: 'create_traffic_route',
  change: trafficRouteChanges.create_traffic_route,
  description: 'Allow, block or bandwidth-limit traffic to a destination, for a network or every client',
  access: 'write',
  example: 'name="Block DNS bypass" action=deny destination_ip=1.1.1.1 destination_port=53 vlan_id=20',
  args: z.object({
    site_id: siteId,
    name: text(128).describe('Route name'),
    action: z
      .enum(ROUTE_ACTIONS, { error: `must be one of ${ROUTE_ACTIONS.join(', ')}` })
      .describe('allow, deny or shape (mark is refused: no DSCP marking on the controller)'),
    source_ip: address.optional().describe("A network's subnet: the rule applies to that network"),
    destination_ip: address.optional().describe('Destination address or CIDR (omitted: all internet)'),
    source_port: port
      .optional()
      .describe('Refused (the spec names it): traffic rules match destination ports only'),
    destination_port: port.optional().describe('Destination port (needs destination_ip)'),
    protocol: z
      .enum(ROUTE_PROTOCOLS, { error: `must be one of ${ROUTE_PROTOCOLS.join(', ')}` })
      .optional()
      .describe('Protocol of the destination port (default: all)'),
    vlan_id: vlanId.optional().describe('The rule applies to the network with this VLAN'),
    dscp_marking: intInRange(0, 63)
      .optional()
      .describe('Refused (the spec names it): the controller has no DSCP marking'),
    bandwidth_limit_kbps: intInRange(1, 10_000_000).optional().describe('For shape: kbps each way'),
    priority: intInRange(1, 1000)
      .optional()
      .describe('Refused (the spec names it): traffic rules have no evaluation order'),
    enabled: z
      .boolean({ error: 'must be true or false' })
      .default(true)
      .describe('Whether the route is active'),
    confirm,
    dry_run: dryRun,
  }),
  async run(args, { gateway }) {
    const issues = routeIssues(args);
    if (issues.length > 0) throw new ValidationError(issues);
    assertSupported(args);
    const networks = needsNetworks(args) ? await readNetworks(gateway, args.site_id, true) : [];
    const targets = targetDevices(args, networks, args.site_id);
    const payload = buildTrafficRulePayload(args, targets);
    return applyCreate({
      dryRun: args.dry_run,
      payload,
      warnings: createWarnings(args, targets),
      nameOf: networkNames(networks),
      send: () => gateway.v2Write(args.site_id, 'POST', RULES, payload),
      // An answer the schema cannot read is shown as the controller sent it.
      result: (answer) => ({ traffic_route: viewOf(answer, networks) ?? answer }),
    });
  },
});

const updateTrafficRoute = defineTool({
  name: 'update_traffic_route',
  change: trafficRouteChanges.update_traffic_route,
  description: 'Enable or disable a traffic route',
  access: 'write',
  example: 'route_id="Guest bandwidth cap" enabled=false',
  args: z.object({
    site_id: siteId,
    route_id: routeRef,
    enabled: z.boolean({ error: 'must be true or false' }).describe('Turn the route on or off'),
    confirm,
    dry_run: dryRun,
  }),
  async run({ site_id, route_id, enabled, dry_run }, { gateway }) {
    const rules = await readRules(gateway, site_id, true);
    const { stored, view } = findRule(rules, route_id);
    const changes = fieldChanges({ enabled: view.enabled }, { enabled });
    // The PUT is a full replace: the rule goes back exactly as stored, with only `enabled` changed.
    const body = { ...stored, enabled };
    const warnings =
      'enabled' in changes && !enabled && view.action === 'deny'
        ? ['traffic this rule blocks will flow again']
        : [];
    return applyUpdate({
      dryRun: dry_run,
      subject: { route_id: view.id, name: view.name },
      changes,
      body,
      warnings,
      nameOf: networkNames(rules.networks),
      send: () => gateway.v2Write(site_id, 'PUT', `${RULES}/${view.id}`, body),
      result: (answer) => ({
        traffic_route: answer === undefined ? view : (viewOf(answer, rules.networks) ?? answer),
      }),
    });
  },
});

const deleteTrafficRoute = defineTool({
  name: 'delete_traffic_route',
  change: trafficRouteChanges.delete_traffic_route,
  description: 'Delete a traffic route (irreversible)',
  access: 'write',
  example: 'route_id="Guest bandwidth cap"',
  args: z.object({ site_id: siteId, route_id: routeRef, confirm, dry_run: dryRun }),
  async run({ site_id, route_id, dry_run }, { gateway }) {
    const { view } = findRule(await readRules(gateway, site_id, true), route_id);
    const effect: Record<string, string> = {
      deny: 'traffic it blocks will flow again',
      shape: 'its bandwidth limit is lifted',
    };
    const warnings = ['deletion is irreversible'];
    const lost = effect[view.action];
    if (view.enabled && lost) warnings.push(lost);
    return applyDelete({
      dryRun: dry_run,
      preview: view,
      warnings,
      idField: 'deleted_route_id',
      id: view.id,
      send: () => gateway.v2Write(site_id, 'DELETE', `${RULES}/${view.id}`),
    });
  },
});

/** Spec 4.7: traffic routes, backed by the controller's v2 Traffic Management rules. */
export const trafficRouteTools: ToolDefinition[] = [
  listTrafficRoutes,
  createTrafficRoute,
  updateTrafficRoute,
  deleteTrafficRoute,
];
