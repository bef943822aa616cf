import type { FaultSpec } from '../../src/simulator/index.js';

/** Nine networkconf records of which seven are not records at all: two networks are readable. */
export const NINE_NETWORKS: unknown[] = [
  { _id: 'good1', name: 'Lab', purpose: 'corporate', vlan: 12, ip_subnet: '10.12.0.1/24' },
  null,
  'not a record',
  42,
  true,
  [],
  'x',
  0,
  { _id: 'good2', name: 'Cameras', purpose: 'corporate', vlan: 13, ip_subnet: '10.13.0.1/24' },
];

/** The line every face shows under such a list (lib/unreadable-records.ts). */
export const SEVEN_LEFT_OUT = '2 shown; 7 controller records the bot could not read were left out.';

/** A simulator fault that answers `GET rest/networkconf` with the nine records (`times` uses). */
export function nineNetworks(times = 1): FaultSpec {
  return {
    route: 'rest/networkconf',
    method: 'GET',
    kind: 'status',
    status: 200,
    body: { meta: { rc: 'ok' }, data: NINE_NETWORKS },
    times,
  };
}
