import { type FieldIssue, NotSupportedError, ResourceNotFoundError, ValidationError } from '../../errors.js';
import { parseCidr, parseIpv4 } from '../../lib/ip.js';
import type { NetworkRecord } from '../../records/network-record.js';
import type { TrafficRuleRecord } from '../../records/traffic-rule-record.js';
import { missingValue } from '../core/missing-values.js';
import { BUNDLED_NAMES } from '../dpi/dpi-model.js';
import { vlanOf } from '../networks/network-model.js';

/** The spec's route actions. */
export const ROUTE_ACTIONS = ['allow', 'deny', 'mark', 'shape'] as const;

/** The spec's protocols. */
export const ROUTE_PROTOCOLS = ['tcp', 'udp', 'icmp', 'all'] as const;

/** The spec's traffic route (2.6), read from a v2 traffic rule, plus what the rule really matches. */
export type TrafficRoute = {
  id: string;
  name: string;
  action: string;
  /** Always null: the controller has no DSCP marking (see DSCP_UNSUPPORTED). */
  dscp_marking: null;
  /** Always null: traffic rules carry no evaluation order. */
  priority: null;
  enabled: boolean;
  match_criteria: {
    destination_port: number | null;
    protocol: string | null;
    destination_ip: string | null;
    vlan_id: number | null;
  };
  bandwidth_limit_kbps: number | null;
  /** The controller's own target (`IP`, `INTERNET`, `APP`…); other than IP/INTERNET the criteria are null. */
  matching_target: string | null;
  /** What an `APP` or `APP_CATEGORY` rule matches, named from the DPI catalogue; null for other rules. */
  applications: string[] | null;
  applies_to: string[];
};

/** Why `mark` and `dscp_marking` are refused; the research behind it is in docs/decisions.md. */
export const DSCP_UNSUPPORTED =
  'DSCP marking is not available on the controller: its traffic rules (v2 trafficrules) can only allow, ' +
  'block or limit bandwidth, and its QoS rules (v2 qos-rules) only prioritise or limit ' +
  '(objective LIMIT, PRIORITIZE or LIMIT_AND_PRIORITIZE) and have no DSCP field';

/** The arguments of create_traffic_route that shape the controller rule. */
export interface RouteSettings {
  name: string;
  action: (typeof ROUTE_ACTIONS)[number];
  source_ip?: string | undefined;
  destination_ip?: string | undefined;
  source_port?: number | undefined;
  destination_port?: number | undefined;
  protocol?: (typeof ROUTE_PROTOCOLS)[number] | undefined;
  vlan_id?: number | undefined;
  dscp_marking?: number | undefined;
  bandwidth_limit_kbps?: number | undefined;
  priority?: number | undefined;
  enabled: boolean;
}

/** The spec's action of a stored rule: BLOCK → deny, an enabled bandwidth limit → shape, ALLOW → allow. */
export function routeAction(record: TrafficRuleRecord): string {
  const action = (record.action ?? '').toUpperCase();
  if (action === 'BLOCK') return 'deny';
  if (record.bandwidth_limit?.enabled === true) return 'shape';
  if (action === 'ALLOW') return 'allow';
  // An action this bot does not know is shown as the controller names it, never guessed.
  return action.toLowerCase() || 'unknown';
}

function describeTarget(
  target: TrafficRuleRecord['target_devices'][number],
  networks: readonly NetworkRecord[],
) {
  if (target.type === 'ALL_CLIENTS') return 'all clients';
  if (target.type === 'CLIENT') return `client ${target.client_mac ?? '?'}`;
  if (target.type === 'NETWORK') {
    const network = networks.find((n) => n._id === target.network_id);
    if (!network) return `network ${target.network_id ?? '?'}`;
    const vlan = vlanOf(network);
    return `network ${network.name}${vlan === null ? '' : ` (VLAN ${vlan})`}`;
  }
  return target.type.toLowerCase();
}

/** The one destination port of an IP rule, when every address carries that same single port. */
function destinationPort(record: TrafficRuleRecord): number | null {
  const ports = new Set<number>();
  for (const address of record.ip_addresses) {
    if (address.port_ranges.length > 0 || address.ports.length !== 1) return null;
    for (const port of address.ports) ports.add(port);
  }
  const [only] = [...ports];
  return ports.size === 1 && only !== undefined ? only : null;
}

/** The applications and categories a rule matches, by name with the catalogue id beside it. */
function applicationsOf(record: TrafficRuleRecord): string[] | null {
  const named = (kind: string, id: number, name: string | undefined) =>
    name === undefined ? `${kind} ${id}` : `${name} (${id})`;
  const all = [
    ...record.app_ids.map((id) => named('application', id, BUNDLED_NAMES.byKey(id))),
    ...record.app_category_ids.map(
      (id) => `category ${named('', id, BUNDLED_NAMES.categoryName(id)).trim()}`,
    ),
  ];
  return all.length > 0 ? all : null;
}

/** A stored traffic rule as the spec's traffic route. */
export function toTrafficRoute(record: TrafficRuleRecord, networks: readonly NetworkRecord[]): TrafficRoute {
  const target = record.matching_target ?? null;
  const representable = target === 'IP' || target === 'INTERNET';
  const [onlyTarget] = record.target_devices;
  const network =
    record.target_devices.length === 1 && onlyTarget?.type === 'NETWORK'
      ? networks.find((n) => n._id === onlyTarget.network_id)
      : undefined;
  const limit = record.bandwidth_limit;
  return {
    id: record._id,
    name: record.description,
    action: routeAction(record),
    dscp_marking: null,
    priority: null,
    enabled: record.enabled === true,
    match_criteria: {
      destination_port: target === 'IP' ? destinationPort(record) : null,
      // Traffic rules have no protocol field: what they match, they match on every protocol.
      protocol: representable ? 'all' : null,
      destination_ip:
        target === 'IP' && record.ip_addresses.length > 0
          ? record.ip_addresses.map((a) => a.ip_or_subnet).join(',')
          : null,
      vlan_id: network ? vlanOf(network) : null,
    },
    bandwidth_limit_kbps: limit?.enabled === true ? (limit.download_limit_kbps ?? null) : null,
    matching_target: target,
    applications: applicationsOf(record),
    applies_to: record.target_devices.map((t) => describeTarget(t, networks)),
  };
}

/** Arguments that contradict each other, named by field; checked before anything is read. */
export function routeIssues(settings: RouteSettings): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (settings.action === 'shape' && settings.bandwidth_limit_kbps === undefined) {
    issues.push(missingValue('bandwidth_limit_kbps', 'is required for action shape'));
  }
  if (settings.action !== 'shape' && settings.bandwidth_limit_kbps !== undefined) {
    issues.push({ field: 'bandwidth_limit_kbps', rule: 'applies only to action shape' });
  }
  if (settings.destination_port !== undefined && settings.destination_ip === undefined) {
    issues.push({
      field: 'destination_port',
      rule: 'needs destination_ip: traffic rules match ports per destination address',
    });
  }
  return issues;
}

/** Refuses, before anything is read or sent, what the controller's traffic rules cannot express. */
export function assertSupported(settings: RouteSettings): void {
  const reasons: string[] = [];
  if (settings.action === 'mark' || settings.dscp_marking !== undefined) reasons.push(DSCP_UNSUPPORTED);
  if (settings.priority !== undefined) {
    reasons.push(
      'priority cannot be set: traffic rules have no evaluation-order field, so a priority would change nothing',
    );
  }
  if (settings.source_port !== undefined) {
    reasons.push('source_port cannot be matched: traffic rules match destination ports only');
  }
  if (settings.protocol !== undefined && settings.protocol !== 'all') {
    reasons.push(
      `protocol ${settings.protocol} cannot be matched: traffic rules have no protocol field ` +
        '(their ports match TCP and UDP alike); use protocol=all or leave it out',
    );
  }
  if (reasons.length > 0) throw new NotSupportedError(reasons.join('; '));
}

/** True when the settings need the site's networks (a VLAN or a source subnet to resolve). */
export function needsNetworks(settings: RouteSettings): boolean {
  return settings.vlan_id !== undefined || settings.source_ip !== undefined;
}

function networkOfSubnet(networks: readonly NetworkRecord[], text: string): NetworkRecord | undefined {
  const wanted = parseCidr(text.includes('/') ? text : `${text}/32`);
  if (!wanted) return undefined;
  return networks.find((n) => {
    const subnet = n.purpose !== 'wan' && n.ip_subnet ? parseCidr(n.ip_subnet) : undefined;
    return subnet !== undefined && subnet.prefix === wanted.prefix && subnet.network === wanted.network;
  });
}

/**
 * Whom the rule applies to. Traffic rules select sources by network or client, not by address:
 * `vlan_id` is the network with that VLAN, and `source_ip` must be exactly a network's subnet.
 * Neither means every client.
 */
export function targetDevices(
  settings: RouteSettings,
  networks: readonly NetworkRecord[],
  site: string,
): Record<string, string>[] {
  let byVlan: NetworkRecord | undefined;
  if (settings.vlan_id !== undefined) {
    byVlan = networks.find((n) => vlanOf(n) === settings.vlan_id);
    if (!byVlan) {
      throw new ResourceNotFoundError(
        'network',
        `VLAN ${settings.vlan_id}`,
        `no network on site ${site} has VLAN ${settings.vlan_id}`,
      );
    }
  }
  let bySubnet: NetworkRecord | undefined;
  if (settings.source_ip !== undefined) {
    bySubnet = networkOfSubnet(networks, settings.source_ip);
    if (!bySubnet) {
      throw new ValidationError([
        {
          field: 'source_ip',
          rule:
            `${settings.source_ip} is not the subnet of a network on site ${site}; traffic rules select ` +
            'sources by network or client, not by address (give a network subnet such as 10.20.0.0/24, or vlan_id)',
        },
      ]);
    }
  }
  if (byVlan && bySubnet && byVlan._id !== bySubnet._id) {
    throw new ValidationError([
      {
        field: 'source_ip',
        rule: `is the subnet of ${bySubnet.name}, but vlan_id ${settings.vlan_id} is ${byVlan.name}`,
      },
    ]);
  }
  const network = byVlan ?? bySubnet;
  return network ? [{ network_id: network._id, type: 'NETWORK' }] : [{ type: 'ALL_CLIENTS' }];
}

// The controller stores a disabled 1024/1024 limit on rules without one (every captured rule has it).
const NO_LIMIT = { download_limit_kbps: 1024, enabled: false, upload_limit_kbps: 1024 };

/** The v2 `trafficrules` body for a new route (keys in the controller's order). */
export function buildTrafficRulePayload(
  settings: RouteSettings,
  targets: Record<string, string>[],
): Record<string, unknown> {
  const destination = settings.destination_ip;
  const limit = settings.bandwidth_limit_kbps;
  return {
    action: settings.action === 'deny' ? 'BLOCK' : 'ALLOW',
    app_category_ids: [],
    app_ids: [],
    bandwidth_limit:
      settings.action === 'shape' && limit !== undefined
        ? { download_limit_kbps: limit, enabled: true, upload_limit_kbps: limit }
        : NO_LIMIT,
    description: settings.name,
    domains: [],
    enabled: settings.enabled,
    ip_addresses:
      destination === undefined
        ? []
        : [
            {
              ip_or_subnet: destination,
              ip_version: parseIpv4(destination.split('/')[0] ?? '') === undefined ? 'v6' : 'v4',
              port_ranges: [],
              ports: settings.destination_port === undefined ? [] : [settings.destination_port],
            },
          ],
    ip_ranges: [],
    matching_target: destination === undefined ? 'INTERNET' : 'IP',
    network_ids: [],
    regions: [],
    schedule: { mode: 'ALWAYS', repeat_on_days: [], time_all_day: false },
    target_devices: targets,
  };
}

/** What an approver should know about a new route. */
export function createWarnings(settings: RouteSettings, targets: Record<string, string>[]): string[] {
  const warnings: string[] = [];
  const who = targets[0]?.type === 'NETWORK' ? 'the network' : 'every client';
  if (settings.destination_ip === undefined) {
    warnings.push(`without destination_ip the rule matches all internet traffic of ${who}`);
  }
  if (settings.action === 'shape' && settings.bandwidth_limit_kbps !== undefined) {
    warnings.push(
      `the limit applies to download and upload alike (${settings.bandwidth_limit_kbps} kbps each)`,
    );
  }
  return warnings;
}
