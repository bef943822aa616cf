import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_CORE_SWITCH_UUID, DEMO_DEVICES } from '../../src/simulator/index.js';
import { integrationIdOf } from '../../src/simulator/routes/integration-live.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { api, classicData, classicError, field, SITE_UUID } from './support.js';

// The simulated controller's side of the on-call actions: what it accepts and refuses on each API,
// and the state both APIs share.

const sim = useSimulator({ actionDelayMs: 60_000 });
beforeEach(() => sim.reset());

const SITE = `/integration/v1/sites/${SITE_UUID}`;
const GALAXY = 'f2:3c:91:0a:bb:1a';
const NAS = '00:11:32:8a:bc:04';

describe('Integration actions', () => {
  it('lists devices and clients with ids derived from their MACs, the core switch keeping its UUID', async () => {
    const devices = await api(sim, 'GET', `${SITE}/devices?limit=200`);
    const core = (field(devices, 'data') as { id: string; macAddress: string; state: string }[]).find(
      (d) => d.macAddress === DEMO_DEVICES.coreSwitch.mac,
    );
    expect(core).toMatchObject({ id: DEMO_CORE_SWITCH_UUID, state: 'ONLINE' });
    const clients = await api(
      sim,
      'GET',
      `${SITE}/clients?filter=${encodeURIComponent(`macAddress.eq('${GALAXY}')`)}`,
    );
    expect(field(clients, 'data')).toEqual([
      expect.objectContaining({
        id: integrationIdOf(GALAXY),
        type: 'WIRELESS',
        access: expect.objectContaining({ type: 'GUEST' }),
      }),
    ]);
  });

  it('refuses a port action on a port without PoE, an unknown action, and a guest action on a non-guest', async () => {
    const port1 = await api(
      sim,
      'POST',
      `${SITE}/devices/${DEMO_CORE_SWITCH_UUID}/interfaces/ports/1/actions`,
      {
        body: { action: 'POWER_CYCLE' },
      },
    );
    expect(port1.status).toBe(400);
    const locate = await api(sim, 'POST', `${SITE}/devices/${DEMO_CORE_SWITCH_UUID}/actions`, {
      body: { action: 'LOCATE' },
    });
    expect(locate.status).toBe(400);
    const nas = await api(sim, 'POST', `${SITE}/clients/${integrationIdOf(NAS)}/actions`, {
      body: { action: 'AUTHORIZE_GUEST_ACCESS' },
    });
    expect(nas.status).toBe(400);
    const limits = await api(sim, 'POST', `${SITE}/clients/${integrationIdOf(GALAXY)}/actions`, {
      body: { action: 'AUTHORIZE_GUEST_ACCESS', rxRateLimitKbps: 1 },
    });
    expect(limits.status).toBe(400);
    expect(
      sim.state.site('default')?.devices.every((d) => d.mac === DEMO_DEVICES.garageAp.mac || d.state === 1),
    ).toBe(true);
  });

  it('needs a voucher name and a time limit, and answers 201 with the vouchers made', async () => {
    expect(
      (await api(sim, 'POST', `${SITE}/hotspot/vouchers`, { body: { count: 1, timeLimitMinutes: 60 } }))
        .status,
    ).toBe(400);
    expect(
      (await api(sim, 'POST', `${SITE}/hotspot/vouchers`, { body: { count: 1, name: 'x' } })).status,
    ).toBe(400);
    const made = await api(sim, 'POST', `${SITE}/hotspot/vouchers`, {
      body: { count: 2, name: 'Lobby', timeLimitMinutes: 60 },
    });
    expect(made.status).toBe(201);
    expect(field(made, 'vouchers')).toHaveLength(2);
    const id = (field(made, 'vouchers') as { id: string }[])[0]?.id;
    expect(field(await api(sim, 'DELETE', `${SITE}/hotspot/vouchers/${id}`), 'vouchersDeleted')).toBe(1);
    expect((await api(sim, 'DELETE', `${SITE}/hotspot/vouchers/${id}`)).status).toBe(404);
  });
});

describe('classic commands', () => {
  it('refuse an unknown device, a wired kick, and a power cycle without PoE, with their codes', async () => {
    const unknown = await api(sim, 'POST', '/api/s/default/cmd/devmgr', {
      body: { cmd: 'restart', mac: '00:00:00:00:00:01' },
    });
    expect(classicError(unknown)).toBe('api.err.UnknownDevice');
    const wired = await api(sim, 'POST', '/api/s/default/cmd/stamgr', {
      body: { cmd: 'kick-sta', mac: NAS },
    });
    expect(classicError(wired)).toBe('api.err.WiredStation');
    const noPoe = await api(sim, 'POST', '/api/s/default/cmd/devmgr', {
      body: { cmd: 'power-cycle', mac: DEMO_DEVICES.coreSwitch.mac, port_idx: 1 },
    });
    expect(classicError(noPoe)).toBe('api.err.PortNotPoe');
  });

  it('keep a blocked client in rest/user, out of stat/sta, across a kick of its AP', async () => {
    classicData(
      await api(sim, 'POST', '/api/s/default/cmd/stamgr', { body: { cmd: 'block-sta', mac: GALAXY } }),
    );
    const sta = classicData(await api(sim, 'GET', '/api/s/default/stat/sta'));
    expect(sta.some((c) => c.mac === GALAXY)).toBe(false);
    const users = classicData(await api(sim, 'GET', '/api/s/default/rest/user'));
    expect(users.find((c) => c.mac === GALAXY)).toMatchObject({ blocked: true });
    // The demo's own blocked client is there too.
    expect(users.find((c) => c.name === 'Unknown Tablet')).toMatchObject({ blocked: true });
    // The AP restarts and comes back: the blocked client does not come back with it.
    sim.state.actionDelayMs = 0;
    classicData(
      await api(sim, 'POST', '/api/s/default/cmd/devmgr', {
        body: { cmd: 'restart', mac: DEMO_DEVICES.livingAp.mac },
      }),
    );
    const after = classicData(await api(sim, 'GET', '/api/s/default/stat/sta'));
    expect(after.some((c) => c.mac === 'a4:83:e7:11:22:01')).toBe(true);
    expect(after.some((c) => c.mac === GALAXY)).toBe(false);
    sim.state.actionDelayMs = 60_000;
  });

  it('create vouchers answering only the create_time, listed by stat/voucher', async () => {
    const created = classicData(
      await api(sim, 'POST', '/api/s/default/cmd/hotspot', {
        body: { cmd: 'create-voucher', n: 3, expire: 30, quota: 0, note: 'Bar' },
      }),
    );
    expect(Object.keys(created[0] ?? {})).toEqual(['create_time']);
    const listed = classicData(await api(sim, 'GET', '/api/s/default/stat/voucher'));
    expect(listed.filter((v) => v.note === 'Bar' && v.create_time === created[0]?.create_time)).toHaveLength(
      3,
    );
  });
});
