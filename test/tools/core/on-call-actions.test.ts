import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ConflictError, ResourceNotFoundError, ValidationError } from '../../../src/errors.js';
import { DEMO_CORE_SWITCH_UUID, DEMO_DEVICES, DEMO_SITE } from '../../../src/simulator/index.js';
import { rejection, useTestBot } from '../../helpers/tool-test.js';

// Long enough that nothing comes back by itself during a test; tests that wait for it shorten it.
// A patient gateway: the machine is shared, and the first calls of a file also load the code.
const PATIENT = {
  timeoutMs: 10_000,
  retry: { attempts: 2, budgetMs: 10_000, baseDelayMs: 10, maxDelayMs: 50 },
};
const bot = useTestBot({ simulator: { actionDelayMs: 60_000 }, gateway: PATIENT });
const INTEGRATION = `/integration/v1/sites/${DEMO_SITE.uuid}`;

const writeLines = () => bot.writes().map((w) => `${w.method} ${w.route} ${JSON.stringify(w.body)}`);
const online = (mac: string) => bot.site().clients.some((c) => c.mac === mac);
const deviceState = (mac: string) => bot.site().devices.find((d) => d.mac === mac)?.state;

/** Polls until `check` holds (the simulator brings things back lazily, on the next request). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const GALAXY = 'f2:3c:91:0a:bb:1a';
const FRONT_DOOR_CAM = 'e0:63:da:c1:00:1f';

describe('every action: a dry run sends nothing, a confirmed run sends exactly one command', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'restart_device',
      { device_id: 'Core Switch' },
      `POST ${INTEGRATION}/devices/${DEMO_CORE_SWITCH_UUID}/actions {"action":"RESTART"}`,
    ],
    [
      'power_cycle_port',
      { device_id: 'core switch', port_idx: 6 },
      `POST ${INTEGRATION}/devices/${DEMO_CORE_SWITCH_UUID}/interfaces/ports/6/actions {"action":"POWER_CYCLE"}`,
    ],
    [
      'locate_device',
      { device_id: '78-45-58-6D-70-21' },
      'POST /api/s/default/cmd/devmgr {"cmd":"set-locate","mac":"78:45:58:6d:70:21"}',
    ],
    [
      'locate_device',
      { device_id: 'Living Room AP', enabled: false },
      'POST /api/s/default/cmd/devmgr {"cmd":"unset-locate","mac":"78:45:58:6d:70:21"}',
    ],
    [
      'block_client',
      { client: 'Galaxy-S23' },
      `POST /api/s/default/cmd/stamgr {"cmd":"block-sta","mac":"${GALAXY}"}`,
    ],
    [
      'reconnect_client',
      { client: '10.30.0.24' },
      `POST /api/s/default/cmd/stamgr {"cmd":"kick-sta","mac":"${GALAXY}"}`,
    ],
    ['unauthorize_guest', { client: 'F23C910ABB1A' }, 'UNAUTHORIZE_GUEST_ACCESS'],
    [
      'create_vouchers',
      { count: 3, minutes: 480, quota: 2, down_kbps: 5000, note: 'Workshop' },
      `POST ${INTEGRATION}/hotspot/vouchers {"count":3,"name":"Workshop","timeLimitMinutes":480,"authorizedGuestLimit":2,"rxRateLimitKbps":5000}`,
    ],
    ['revoke_voucher', { voucher_id: '48614-09510' }, `DELETE ${INTEGRATION}/hotspot/vouchers/`],
    [
      'set_wifi_broadcast_enabled',
      { wifi_id: 'Guest WiFi', enabled: false },
      // 10.1: the official full replacement; its body: test/tools/wifi-official.test.ts.
      `PUT ${INTEGRATION}/wifi/broadcasts/`,
    ],
  ];
  it.each(cases)('%s %j', async (tool, args, expected) => {
    const preview = (await bot.run(tool, { ...args, dry_run: true })) as Record<string, unknown>;
    expect(preview.dry_run).toBe(true);
    expect(preview.would_send).toBeDefined();
    expect(bot.writes()).toEqual([]);

    const result = (await bot.run(tool, { ...args, confirm: true })) as Record<string, unknown>;
    expect(result.success).toBe(true);
    // What ran is what the preview showed.
    expect(result.sent).toEqual(preview.would_send);
    const lines = writeLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(expected);
  });

  it('authorize_guest sends the documented limits once', async () => {
    await bot.run('authorize_guest', {
      client: 'Galaxy-S23',
      minutes: 120,
      down_kbps: 2000,
      up_kbps: 500,
      data_mb: 1024,
      confirm: true,
    });
    const [write] = bot.writes();
    expect(bot.writes()).toHaveLength(1);
    expect(write?.route).toMatch(new RegExp(`^${INTEGRATION}/clients/[0-9a-f-]{36}/actions$`));
    expect(write?.body).toEqual({
      action: 'AUTHORIZE_GUEST_ACCESS',
      timeLimitMinutes: 120,
      dataUsageLimitMBytes: 1024,
      rxRateLimitKbps: 2000,
      txRateLimitKbps: 500,
    });
    expect(bot.site().guestAuthorizations[GALAXY]).toMatchObject({
      timeLimitMinutes: 120,
      rxRateLimitKbps: 2000,
    });
  });
});

describe('refusals: nothing reaches the controller, and the candidates are named', () => {
  const refusals: [
    string,
    Record<string, unknown>,
    typeof ValidationError | typeof ResourceNotFoundError | typeof ConflictError,
    RegExp,
  ][] = [
    ['restart_device', { device_id: 'Core Swich' }, ResourceNotFoundError, /did you mean .*Core Switch/],
    [
      'power_cycle_port',
      { device_id: 'Core Switch', port_idx: 40 },
      ResourceNotFoundError,
      /port 40 not found on Core Switch \(it has ports 1–26; PoE now on 5, 6, 7\)/,
    ],
    [
      'power_cycle_port',
      { device_id: 'Core Switch', port_idx: 1 },
      ValidationError,
      /port 1 of Core Switch supplies no PoE now.*ports supplying PoE now: 5, 6, 7/,
    ],
    [
      'power_cycle_port',
      { device_id: 'Media Cabinet Flex', port_idx: 2 },
      ValidationError,
      /is not a PoE port.*no port of Media Cabinet Flex supplies PoE now/,
    ],
    ['block_client', { client: 'Galaxy-S2' }, ResourceNotFoundError, /did you mean Galaxy-S23/],
    [
      'reconnect_client',
      { client: 'Synology NAS' },
      ValidationError,
      /is wired: only a Wi-Fi client can be kicked/,
    ],
    ['authorize_guest', { client: 'Synology NAS' }, ValidationError, /not a guest \(it is on Default\)/],
    ['unblock_client', { client: 'Galaxy-S23' }, ConflictError, /is not blocked/],
    [
      'revoke_voucher',
      { voucher_id: '12345-67890' },
      ResourceNotFoundError,
      /the site has 48614-09510 \(Front desk\), 73022-18845 \(Conference room\)/,
    ],
    [
      'set_wifi_broadcast_enabled',
      { wifi_id: 'Office', enabled: false },
      ResourceNotFoundError,
      /the site has Home \(.*\), Home-IoT \(.*\), Guest WiFi/,
    ],
    ['set_wifi_broadcast_enabled', { wifi_id: 'Home', enabled: true }, ConflictError, /already on/],
  ];
  it.each(refusals)('%s %j', async (tool, args, kind, message) => {
    for (const mode of [{ dry_run: true }, { confirm: true }]) {
      const error = await rejection(bot.run(tool, { ...args, ...mode }));
      expect(error).toBeInstanceOf(kind);
      expect(error.message).toMatch(message);
    }
    expect(bot.writes()).toEqual([]);
  });

  it('a write without confirm or dry_run is refused before any read', async () => {
    await rejection(bot.run('restart_device', { device_id: 'Core Switch' }));
    expect(bot.sim.requests).toEqual([]);
  });
});

describe('blast radius in the preview, from the topology graph', () => {
  it('names what is behind a switch, an AP and a PoE port', async () => {
    const core = (await bot.run('restart_device', { device_id: 'Core Switch', dry_run: true })) as {
      warnings: string[];
    };
    expect(core.warnings[0]).toBe(
      // The Garage AP behind it is offline already: not counted.
      'Core Switch: 40 clients and 4 devices (Media Cabinet Flex, Office Switch, Living Room AP, Garden Mesh AP) behind it lose connectivity for about 2 minutes',
    );
    const flex = (await bot.run('restart_device', { device_id: 'Media Cabinet Flex', dry_run: true })) as {
      warnings: string[];
    };
    expect(flex.warnings[0]).toBe(
      'Media Cabinet Flex: 4 clients behind it lose connectivity for about 2 minutes',
    );
    const gateway = (await bot.run('restart_device', { device_id: 'Dream Machine Pro', dry_run: true })) as {
      warnings: string[];
    };
    expect(gateway.warnings[0]).toMatch(
      /^Dream Machine Pro: 40 clients and 5 devices .* for about 5 minutes$/,
    );
    const apPort = (await bot.run('power_cycle_port', {
      device_id: 'Office Switch',
      port_idx: 5,
      dry_run: true,
    })) as { warnings: string[] };
    expect(apPort.warnings[0]).toMatch(
      /Living Room AP restarts \(about 2 minutes\); 20 clients and 1 device \(Garden Mesh AP\)/,
    );
  });
});

describe('the simulator keeps one consistent state', () => {
  it('a restarted device goes offline with what is behind it, then comes back', async () => {
    bot.sim.state.actionDelayMs = 30;
    try {
      await bot.run('restart_device', { device_id: 'Media Cabinet Flex', confirm: true });
      const flex = DEMO_DEVICES.flexSwitch.mac;
      // The simulator settles on the next request only, so the state right after the command shows.
      expect(deviceState(flex)).toBe(0);
      expect(online('9c:b6:d0:4e:11:07')).toBe(false);
      await eventually(async () => {
        await bot.run('list_wifi_broadcasts');
        return deviceState(flex) === 1 && online('9c:b6:d0:4e:11:07');
      }, 'the Flex switch and its TV to come back');
    } finally {
      bot.sim.state.actionDelayMs = 60_000;
    }
  });

  // Deliberately alike: each on-call action shortens the simulator's action delay and restores it around its own steps.
  it('a blocked client drops, a kick cannot bring it back, and it reconnects only once unblocked', async () => {
    bot.sim.state.actionDelayMs = 30;
    try {
      await bot.run('block_client', { client: 'Galaxy-S23', confirm: true });
      expect(online(GALAXY)).toBe(false);
      await sleep(60);
      await bot.run('list_wifi_broadcasts');
      expect(online(GALAXY)).toBe(false);
      // Offline now: a kick finds no connected client, and nothing is sent.
      expect(await rejection(bot.run('reconnect_client', { client: GALAXY, confirm: true }))).toBeInstanceOf(
        ResourceNotFoundError,
      );
      // Blocking again is refused; unblocking finds it among the known clients (rest/user).
      expect(
        await rejection(bot.run('block_client', { client: 'Galaxy-S23', confirm: true })),
      ).toBeInstanceOf(ConflictError);
      await bot.run('unblock_client', { client: 'Galaxy-S23', confirm: true });
      await eventually(async () => {
        await bot.run('list_wifi_broadcasts');
        return online(GALAXY);
      }, 'the unblocked client to reconnect');
      expect(writeLines().map((l) => l.split(' ')[2])).toEqual([
        `{"cmd":"block-sta","mac":"${GALAXY}"}`,
        `{"cmd":"unblock-sta","mac":"${GALAXY}"}`,
      ]);
    } finally {
      bot.sim.state.actionDelayMs = 60_000;
    }
  });

  it("a power-cycled port's client drops and reconnects", async () => {
    bot.sim.state.actionDelayMs = 30;
    try {
      await bot.run('power_cycle_port', { device_id: 'Core Switch', port_idx: 6, confirm: true });
      expect(online(FRONT_DOOR_CAM)).toBe(false);
      await eventually(async () => {
        await bot.run('list_wifi_broadcasts');
        return online(FRONT_DOOR_CAM);
      }, 'the camera to reconnect');
    } finally {
      bot.sim.state.actionDelayMs = 60_000;
    }
  });

  it('a disabled SSID drops its clients until it is enabled again', async () => {
    bot.sim.state.actionDelayMs = 30;
    try {
      await bot.run('set_wifi_broadcast_enabled', { wifi_id: 'guest wifi', enabled: false, confirm: true });
      const guests = () => bot.site().clients.filter((c) => c.essid === 'Guest WiFi').length;
      expect(guests()).toBe(0);
      const list = (await bot.run('list_wifi_broadcasts')) as {
        name: string;
        enabled: boolean;
        clients: number;
      }[];
      expect(list.find((w) => w.name === 'Guest WiFi')).toMatchObject({ enabled: false, clients: 0 });
      await sleep(60);
      await bot.run('list_wifi_broadcasts');
      expect(guests()).toBe(0);
      await bot.run('set_wifi_broadcast_enabled', { wifi_id: 'Guest WiFi', enabled: true, confirm: true });
      await eventually(async () => {
        await bot.run('list_wifi_broadcasts');
        return guests() === 5;
      }, 'the guests to reconnect');
    } finally {
      bot.sim.state.actionDelayMs = 60_000;
    }
  });

  it('vouchers are created, listed and revoked', async () => {
    const created = (await bot.run('create_vouchers', {
      count: 2,
      minutes: 60,
      note: 'Lobby',
      confirm: true,
    })) as {
      vouchers: { id: string; code: string; note: string }[];
    };
    expect(created.vouchers).toHaveLength(2);
    for (const v of created.vouchers) expect(v.code).toMatch(/^\d{5}-\d{5}$/);
    const listed = (await bot.run('list_vouchers')) as { code: string; note: string }[];
    expect(listed.map((v) => v.note)).toEqual(['Front desk', 'Conference room', 'Lobby', 'Lobby']);
    const first = created.vouchers[0];
    await bot.run('revoke_voucher', { voucher_id: first?.code.replace('-', ''), confirm: true });
    const after = (await bot.run('list_vouchers')) as { code: string }[];
    expect(after.map((v) => v.code)).not.toContain(first?.code);
    expect(after).toHaveLength(3);
  });

  it('locate sets and clears the LED flag', async () => {
    await bot.run('locate_device', { device_id: 'Garden Mesh AP', confirm: true });
    expect(bot.site().devices.find((d) => d.mac === DEMO_DEVICES.meshAp.mac)?.locating).toBe(true);
    await bot.run('locate_device', { device_id: 'Garden Mesh AP', enabled: false, confirm: true });
    expect(bot.site().devices.find((d) => d.mac === DEMO_DEVICES.meshAp.mac)?.locating).toBe(false);
  });
});

describe('without an API key (a session): the classic commands', () => {
  const classic = useTestBot({
    simulator: { actionDelayMs: 60_000 },
    gateway: { ...PATIENT, apiKey: undefined, username: 'admin', password: 'simulator' },
  });
  const lines = () =>
    classic
      .writes()
      .filter((w) => !w.route.includes('/auth/'))
      .map((w) => `${w.method} ${w.route} ${JSON.stringify(w.body)}`);

  it.each([
    [
      'restart_device',
      { device_id: 'Office Switch' },
      'POST /api/s/default/cmd/devmgr {"cmd":"restart","mac":"f4:92:bf:3a:41:12","reboot_type":"soft"}',
    ],
    [
      'power_cycle_port',
      { device_id: 'Core Switch', port_idx: 7 },
      'POST /api/s/default/cmd/devmgr {"cmd":"power-cycle","mac":"74:ac:b9:1c:20:11","port_idx":7}',
    ],
    [
      'authorize_guest',
      { client: 'Galaxy-S23', minutes: 30, up_kbps: 100 },
      `POST /api/s/default/cmd/stamgr {"cmd":"authorize-guest","mac":"${GALAXY}","minutes":30,"up":100}`,
    ],
    [
      'unauthorize_guest',
      { client: 'Galaxy-S23' },
      `POST /api/s/default/cmd/stamgr {"cmd":"unauthorize-guest","mac":"${GALAXY}"}`,
    ],
    [
      'create_vouchers',
      { count: 1, minutes: 90 },
      'POST /api/s/default/cmd/hotspot {"cmd":"create-voucher","n":1,"expire":90,"quota":1,"note":"netops-bot"}',
    ],
    [
      'revoke_voucher',
      { voucher_id: '73022-18845' },
      'POST /api/s/default/cmd/hotspot {"cmd":"delete-voucher","_id":"65b3c8e1f4a9d20c7e5a1702"}',
    ],
  ])('%s sends one classic command', async (tool, args, expected) => {
    await classic.run(tool, { ...args, dry_run: true });
    expect(lines()).toEqual([]);
    const result = (await classic.run(tool, { ...args, confirm: true })) as { success: boolean };
    expect(result.success).toBe(true);
    expect(lines()).toEqual([expected]);
  });

  it('create_vouchers reads the new codes back by their create_time', async () => {
    const result = (await classic.run('create_vouchers', {
      count: 2,
      minutes: 45,
      note: 'Cafe',
      confirm: true,
    })) as {
      vouchers: { code: string; minutes: number }[];
    };
    expect(result.vouchers).toHaveLength(2);
    expect(result.vouchers.every((v) => v.minutes === 45 && /^\d{5}-\d{5}$/.test(v.code))).toBe(true);
  });
});
