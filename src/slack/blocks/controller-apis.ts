import type { types } from '@slack/bolt';
import { clip, mrkdwn } from './text.js';

/** One tool group's endpoint generations on the console, as the gateway's capability table says. */
export interface GroupApisView {
  group: string;
  generations: string[];
  note?: string;
}

const GROUP_WORDS: Readonly<Record<string, string>> = {
  networks: 'Networks',
  'firewall-zones': 'Zones',
  'firewall-rules': 'Firewall rules',
  'firewall-policies': 'Policies',
  'acl-rules': 'ACL',
  'traffic-matching-lists': 'Matching lists',
  'traffic-routes': 'Traffic routes',
  dpi: 'DPI',
  bandwidth: 'Bandwidth',
  topology: 'Topology',
  clients: 'Clients',
  devices: 'Devices',
  'device-actions': 'Device actions',
  'client-actions': 'Client actions',
  hotspot: 'Vouchers',
  wifi: 'Wi-Fi',
};

/**
 * App Home's line under the controller: which endpoint generation (official, classic,
 * v2) each tool group uses on this console. Nothing until the console's `info` was read.
 */
export function controllerApisBlocks(apis: readonly GroupApisView[] | undefined): types.KnownBlock[] {
  if (apis === undefined || apis.length === 0) return [];
  const parts = apis.map((a) => {
    const used = a.generations.length === 0 ? 'not offered' : a.generations.join(' + ');
    return `${mrkdwn(GROUP_WORDS[a.group] ?? a.group)}: ${used}`;
  });
  return [
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: clip(`*Endpoints on this console* · ${parts.join(' · ')}`, 2900) }],
    },
  ];
}
