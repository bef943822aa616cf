import { beforeEach, describe, expect, it } from 'vitest';
import { useSimulator } from '../helpers/shared-simulator.js';
import { api, field } from './support.js';

const sim = useSimulator();
beforeEach(() => sim.reset());

const RULES = '/v2/api/site/default/trafficrules';
const base = {
  action: 'BLOCK',
  description: 'Block a host',
  enabled: true,
  matching_target: 'IP',
  target_devices: [{ type: 'ALL_CLIENTS' }],
};
const address = { ip_or_subnet: '203.0.113.0/24', ip_version: 'v4', port_ranges: [], ports: [443] };

describe('v2 trafficrules destinations and targets', () => {
  it('stores IP destinations shaped as aiounifi types them', async () => {
    const response = await api(sim, 'POST', RULES, {
      body: { ...base, ip_addresses: [address, { ip_or_subnet: '2001:db8::/32', ip_version: 'v6' }] },
    });

    expect(response.status).toBe(200);
    expect(field(response, 'ip_addresses')).toEqual([
      address,
      { ip_or_subnet: '2001:db8::/32', ip_version: 'v6', port_ranges: [], ports: [] },
    ]);
  });

  it.each([
    ['an address of the other version', { ...address, ip_version: 'v6' }],
    ['a port out of range', { ...address, ports: [70000] }],
    ['a reversed port range', { ...address, ports: [], port_ranges: [{ port_start: 90, port_stop: 80 }] }],
    ['no ip_version', { ip_or_subnet: '203.0.113.1', ports: [] }],
  ])('refuses %s with a v2 InvalidPayload', async (_label, entry) => {
    const response = await api(sim, 'POST', RULES, { body: { ...base, ip_addresses: [entry] } });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'api.err.InvalidPayload', errorCode: 400 });
    expect(sim.state.site('default')?.trafficRules).toHaveLength(3);
  });

  it('refuses a CLIENT target without client_mac and a NETWORK target without network_id', async () => {
    const client = await api(sim, 'POST', RULES, { body: { ...base, target_devices: [{ type: 'CLIENT' }] } });
    const network = await api(sim, 'POST', RULES, {
      body: { ...base, target_devices: [{ type: 'NETWORK' }] },
    });

    expect(client.status).toBe(400);
    expect(network.status).toBe(400);
  });
});
