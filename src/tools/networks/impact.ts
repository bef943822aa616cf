import { overlaps, parseCidr } from '../../lib/ip.js';
import type { ImpactFacts } from '../../policy/types.js';
import { networkRecordSchema } from '../../records/network-record.js';
import { firewallGeneration } from '../core/firewall-generation.js';
import { affected, type ImpactInput, lockoutIn } from '../core/guardrails.js';
import { clientLabel, readLiveClients } from '../core/live-targets.js';
import { clientsByNetwork, vlanOf } from './network-model.js';
import { AFTER_DELETE_TEXT, referencesOfNetwork } from './network-references.js';
import { findInSet, loadNetworks, readVpnPools, usesOfficialNetworks } from './network-source.js';

/** The blast radius of the network tools: the clients on a network, what refers to it, the bot's own path. */

// update_network arguments that never move a client or the bot off its network.
const HARMLESS_NETWORK_ARGS = new Set([
  'site_id',
  'network_id',
  'confirm',
  'dry_run',
  'name',
  'domain_name',
  'dhcp_dns_1',
  'dhcp_dns_2',
  'dhcp_dns_3',
  'dhcp_dns_4',
]);

export async function networkImpact(input: ImpactInput): Promise<ImpactFacts> {
  const { context, site, tool, args, position } = input;
  const { gateway } = context;
  // What does not depend on which network it is starts with the network read, not after it: the
  // clients, and the firewall generation that decides which references are asked.
  const clientsEarly = readLiveClients({ gateway, site }, { fresh: true });
  clientsEarly.catch(() => undefined);
  firewallGeneration(gateway, site).catch(() => undefined);
  // On a console known to serve networks officially, the classic ids its references need too (a
  // cold read asks networkconf alongside anyway: `set.classic`).
  const classicEarly =
    gateway.knownConsole() !== undefined && (await usesOfficialNetworks(gateway))
      ? gateway
          .classicRead(site, 'rest/networkconf', networkRecordSchema, { fresh: true })
          .then((l) => l.items)
      : undefined;
  classicEarly?.catch(() => undefined);
  // The network as the network tools read it (official on 10.1), so the target is the one they change.
  const set = await loadNetworks(gateway, site, { fresh: true, ref: String(args.network_id ?? '') });
  const network = await findInSet(gateway, site, set, String(args.network_id ?? ''));
  const vlan = vlanOf(network);
  const label = `network ${network.name}${vlan ? ` (VLAN ${vlan})` : ''}`;
  const removes = tool === 'delete_network';
  const touchesPath =
    removes || Object.keys(args).some((k) => args[k] !== undefined && !HARMLESS_NETWORK_ARGS.has(k));
  const [clients, references] = await Promise.all([
    clientsEarly,
    referencesOfNetwork(gateway, site, network, set.official, set.classic ?? classicEarly),
  ]);
  const members = clientsByNetwork([network], clients, set.official).get(network._id) ?? [];
  const lockout = touchesPath ? lockoutIn(position, network.ip_subnet, label) : undefined;
  return {
    target: label,
    targetRecord: network as Record<string, unknown>,
    // A rename or a DNS change drops no client; the count is still shown for a change that can.
    ...(touchesPath ? { clients: affected(members.map((c) => clientLabel(c))) } : {}),
    references: references.references.map((r) => ({
      kind: r.kind,
      name: r.name,
      id: r.id,
      dangles: r.after_delete !== AFTER_DELETE_TEXT.removed,
    })),
    removes,
    ...(lockout ? { selfLockout: lockout } : {}),
    unchecked: references.unchecked,
  };
}

/**
 * A new network's subnet over a VPN client pool: the VPN clients with addresses in the overlap
 * are affected (their traffic and the new network's would be misrouted).
 */
export async function createNetworkImpact({ context, site, args }: ImpactInput): Promise<ImpactFacts> {
  const label = `new network ${String(args.name ?? '')}`.trim();
  const subnet = typeof args.subnet === 'string' ? parseCidr(args.subnet) : undefined;
  if (!subnet) return { target: label };
  const vpn = await readVpnPools(context.gateway, site);
  const names = vpn.pools.flatMap((pool) => {
    const theirs = pool.ip_subnet ? parseCidr(pool.ip_subnet) : undefined;
    return theirs && overlaps(theirs, subnet) ? vpn.clientsIn(theirs) : [];
  });
  return { target: label, ...(names.length > 0 ? { clients: affected(names) } : {}) };
}
