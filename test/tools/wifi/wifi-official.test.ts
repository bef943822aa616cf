import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Approvals } from '../../../src/approvals/approvals.js';
import { ResourceNotFoundError } from '../../../src/errors.js';
import { DEMO_NETWORKS, DEMO_SITE } from '../../../src/simulator/index.js';
import { integrationWifiId } from '../../../src/simulator/routes/integration-wifi.js';
import type { RecordedRequest } from '../../../src/simulator/types.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import {
  maskWifiSecrets,
  officialToggleBlocker,
  officialWifiBody,
  UNCHANGED_SECRET,
} from '../../../src/tools/wifi/official-wifi-model.js';
import { approvalsInTempDir } from '../../approvals/bot-harness.js';
import { ALEX, RITA, STAN, type tempDataDir } from '../../approvals/harness.js';
import { integrationRequestProblems } from '../../helpers/openapi-check.js';
import type { TestBot } from '../../helpers/test-bot.js';
import { rejection, useTestBot } from '../../helpers/tool-test.js';

// On a 10.1 console Wi-Fi broadcasts are read from the official `wifi/broadcasts` and
// toggled by its full-replacement PUT (tools/official-wifi-model.ts); 9.0 stays classic wlanconf.

const SITE = DEMO_SITE.uuid;
const ID = '3f1c2b7a-9d8e-4f60-a1b2-c3d4e5f60718';
const NET = '0b4b1f64-5b0e-4c57-9a55-3f2b3c1d2e01';
const GUEST_CLASSIC_ID = '65b3c8e1f4a9d20c7e5a1503';

/** A STANDARD WPA2/WPA3 broadcast as `GET …/wifi/broadcasts/{id}` returns it, settings the bot does not model included. */
const DETAILS = {
  type: 'STANDARD',
  id: ID,
  name: 'Office',
  enabled: true,
  metadata: { origin: 'USER_DEFINED' },
  network: { type: 'SPECIFIC', networkId: NET },
  securityConfiguration: {
    type: 'WPA2_WPA3_PERSONAL',
    passphrase: 'office-secret-123',
    pmfMode: 'OPTIONAL',
    saeConfiguration: { anticloggingThresholdSeconds: 5, syncTimeSeconds: 5 },
    wpa3FastRoamingEnabled: false,
    fastRoamingEnabled: true,
  },
  multicastToUnicastConversionEnabled: true,
  clientIsolationEnabled: true,
  hideName: true,
  uapsdEnabled: false,
  broadcastingFrequenciesGHz: [2.4, 5, 6],
  mloEnabled: true,
  bandSteeringEnabled: true,
  arpProxyEnabled: true,
  bssTransitionEnabled: true,
  advertiseDeviceName: false,
  dtimPeriodByFrequencyGHzOverride: { '2.4': 1, '5': 3, '6': 3 },
  multicastFilteringPolicy: { action: 'ALLOW', sourceMacAddressFilter: ['aa:bb:cc:dd:ee:ff'] },
  blackoutScheduleConfiguration: { days: [{ type: 'ALL_DAY', day: 'SUN' }] },
};

const put = (body: unknown): RecordedRequest => ({
  method: 'PUT',
  route: `/integration/v1/sites/${SITE}/wifi/broadcasts/${ID}`,
  path: '',
  headers: {},
  query: {},
  body,
});

describe('the official Wi-Fi body (Wifi broadcast create or update, 10.1.85)', () => {
  it('restates every setting of the details with only enabled changed, without the read-only fields, and the document takes it', () => {
    const body = officialWifiBody(DETAILS, false);
    const { id: _id, metadata: _metadata, ...settings } = DETAILS;
    expect(body).toEqual({ ...settings, enabled: false });
    expect(integrationRequestProblems(put(body))).toEqual([]);
  });

  it('leaves out what only STANDARD names for an IoT-optimized broadcast', () => {
    const body = officialWifiBody({ ...DETAILS, type: 'IOT_OPTIMIZED' }, true);
    expect(body).not.toHaveProperty('broadcastingFrequenciesGHz');
    expect(body).not.toHaveProperty('mloEnabled');
    expect(integrationRequestProblems(put(body))).toEqual([]);
  });

  it('the document check refuses a body without the passphrase a WPA2/WPA3 SSID requires, or without hideName', () => {
    const body = officialWifiBody(DETAILS, false);
    const { passphrase: _p, ...security } = DETAILS.securityConfiguration;
    expect(integrationRequestProblems(put({ ...body, securityConfiguration: security })).join()).toMatch(
      /passphrase/,
    );
    const { hideName: _h, ...noHide } = body;
    expect(integrationRequestProblems(put(noHide)).join()).toMatch(/hideName/);
  });

  it('masks the passphrase and every preshared key, leaving the body sent untouched', () => {
    const body = officialWifiBody(
      {
        ...DETAILS,
        securityConfiguration: {
          type: 'WPA2_PERSONAL',
          passphrase: 'main-secret-1',
          presharedKeys: [{ network: { type: 'NATIVE' }, passphrase: 'ppsk-secret-1' }],
        },
      },
      false,
    );
    const masked = maskWifiSecrets(body);
    expect(JSON.stringify(masked)).not.toMatch(/main-secret-1|ppsk-secret-1/);
    expect(masked.securityConfiguration).toEqual({
      type: 'WPA2_PERSONAL',
      passphrase: UNCHANGED_SECRET,
      presharedKeys: [{ network: { type: 'NATIVE' }, passphrase: UNCHANGED_SECRET }],
    });
    expect(JSON.stringify(body)).toMatch(/main-secret-1/);
  });

  it('keeps a PSK SSID whose details lack the passphrase off the official PUT, and lets open and enterprise ones through', () => {
    const { passphrase: _p, ...noKey } = DETAILS.securityConfiguration;
    expect(officialToggleBlocker({ ...DETAILS, securityConfiguration: noKey })).toMatch(
      /did not return its passphrase/,
    );
    expect(
      officialToggleBlocker({
        securityConfiguration: {
          type: 'WPA2_PERSONAL',
          presharedKeys: [{ network: { type: 'NATIVE' }, passphrase: 'k-12345678' }],
        },
      }),
    ).toBeUndefined();
    expect(officialToggleBlocker({ securityConfiguration: { type: 'OPEN' } })).toBeUndefined();
    expect(officialToggleBlocker({ securityConfiguration: { type: 'WPA2_ENTERPRISE' } })).toBeUndefined();
  });
});

type Broadcast = { id: string; name: string; enabled: boolean; network: string | null; hidden: boolean };
type Toggle = {
  wifi: { id: string; name: string };
  would_send?: { api: string; method: string; path: string; body: Record<string, unknown> };
  sent?: { api: string; method: string; path: string; body: Record<string, unknown> };
  warnings: string[];
};

const wifiRequests = (bot: TestBot) =>
  bot.sim.requests.filter((r) => /wlanconf|wifi\/broadcasts/.test(r.route));
const wlan = (bot: TestBot, name: string) => {
  const found = bot.site().wlans.find((w) => w.name === name);
  if (!found) throw new Error(`no SSID ${name}`);
  return found;
};

/** Turns an SSID off, confirmed: what the tool answers. */
const turnOff = async (bot: TestBot, wifiId: string) =>
  (await bot.run('set_wifi_broadcast_enabled', { wifi_id: wifiId, enabled: false, confirm: true })) as Toggle;
/** The one-key classic PUT that turns an SSID off. */
const classicOff = (path: string) => ({ api: 'classic', method: 'PUT', path, body: { enabled: false } });

describe('Wi-Fi tools on a 10.1 console (official broadcasts)', () => {
  const bot = useTestBot();

  it('lists by official id with the network as the network tools name it, and no classic wlanconf or networkconf request', async () => {
    wlan(bot, 'Home-IoT').hide_ssid = true;
    const list = (await bot.run('list_wifi_broadcasts', {})) as Broadcast[];
    expect(list.map((b) => [b.id, b.name, b.network, b.hidden])).toEqual(
      bot
        .site()
        .wlans.map((w) => [
          integrationWifiId(w),
          w.name,
          { Home: 'Default', 'Home-IoT': 'IoT', 'Guest WiFi': 'Guest' }[w.name],
          w.name === 'Home-IoT',
        ]),
    );
    expect(list[0]).toMatchObject({ security: 'wpapsk (wpa2)', bands: ['2g', '5g'], enabled: true });
    expect(list.find((b) => b.name === 'Guest WiFi')).toMatchObject({ guest: true });
    expect(bot.sim.requests.filter((r) => /rest\/(wlanconf|networkconf)/.test(r.route))).toEqual([]);
    expect(bot.sim.requests.some((r) => r.route.endsWith('/wifi/broadcasts'))).toBe(true);
  });

  it('previews the full official PUT with the passphrase masked, sending nothing', async () => {
    const guest = wlan(bot, 'Guest WiFi');
    guest.l2_isolation = true;
    const preview = (await bot.run('set_wifi_broadcast_enabled', {
      wifi_id: 'Guest WiFi',
      enabled: false,
      dry_run: true,
    })) as Toggle;
    expect(preview.would_send).toEqual({
      api: 'integration',
      method: 'PUT',
      path: `wifi/broadcasts/${integrationWifiId(guest)}`,
      body: expect.objectContaining({
        type: 'STANDARD',
        name: 'Guest WiFi',
        enabled: false,
        network: { type: 'SPECIFIC', networkId: DEMO_NETWORKS.guest.uuid },
        clientIsolationEnabled: true,
        hideName: false,
        broadcastingFrequenciesGHz: [2.4, 5],
        hotspotConfiguration: { type: 'CAPTIVE_PORTAL' },
        securityConfiguration: {
          type: 'WPA2_PERSONAL',
          fastRoamingEnabled: false,
          passphrase: UNCHANGED_SECRET,
        },
      }),
    });
    expect(JSON.stringify(preview)).not.toContain(String(guest.x_passphrase));
    expect(bot.writes()).toEqual([]);
  });

  it('toggles with one official PUT the document takes, restating the passphrase and unmodelled settings; classic reads the same state', async () => {
    const guest = wlan(bot, 'Guest WiFi');
    guest.hide_ssid = true;
    const passphrase = String(guest.x_passphrase);
    const result = await turnOff(bot, integrationWifiId(guest));
    expect(result.wifi).toEqual({ id: integrationWifiId(guest), name: 'Guest WiFi' });
    expect(JSON.stringify(result)).not.toContain(passphrase);
    const writes = bot.writes();
    expect(writes.map((w) => `${w.method} ${w.route}`)).toEqual([
      `PUT /integration/v1/sites/${SITE}/wifi/broadcasts/${integrationWifiId(guest)}`,
    ]);
    expect(integrationRequestProblems(writes[0] as RecordedRequest)).toEqual([]);
    expect(writes[0]?.body).toMatchObject({ hideName: true, securityConfiguration: { passphrase } });
    expect(wifiRequests(bot).filter((r) => r.route.includes('wlanconf'))).toEqual([]);
    expect(guest).toMatchObject({ enabled: false, hide_ssid: true, x_passphrase: passphrase });
    // The classic API sees the same store.
    const classic = await bot.app.context.gateway.classicWrite(
      'default',
      'PUT',
      `rest/wlanconf/${guest._id}`,
      {
        enabled: true,
      },
    );
    expect(classic).toHaveLength(1);
    const list = (await bot.run('list_wifi_broadcasts', {})) as Broadcast[];
    expect(list.find((b) => b.name === 'Guest WiFi')?.enabled).toBe(true);
  });

  it('takes a classic wlanconf _id (one classic read) and a name in any case, answering with the official id', async () => {
    const byClassic = (await bot.run('set_wifi_broadcast_enabled', {
      wifi_id: GUEST_CLASSIC_ID,
      enabled: false,
      dry_run: true,
    })) as Toggle;
    expect(byClassic.wifi.id).toBe(integrationWifiId(wlan(bot, 'Guest WiFi')));
    expect(
      wifiRequests(bot)
        .filter((r) => r.route.includes('wlanconf'))
        .map((r) => r.method),
    ).toEqual(['GET']);
    bot.sim.clearRequests();
    const byName = (await bot.run('set_wifi_broadcast_enabled', {
      wifi_id: 'guest wifi',
      enabled: false,
      dry_run: true,
    })) as Toggle;
    expect(byName.wifi.id).toBe(byClassic.wifi.id);
    expect(wifiRequests(bot).filter((r) => r.route.includes('wlanconf'))).toEqual([]);
    const missing = await rejection(
      bot.run('set_wifi_broadcast_enabled', {
        wifi_id: 'ffffffffffffffffffffffff',
        enabled: false,
        dry_run: true,
      }),
    );
    expect(missing).toBeInstanceOf(ResourceNotFoundError);
    expect(missing.message).toMatch(/Guest WiFi \([0-9a-f-]{36}\)/);
  });

  it('stays classic, saying why, for a PSK SSID whose official details carry no passphrase', async () => {
    delete wlan(bot, 'Home-IoT').x_passphrase;
    const result = await turnOff(bot, 'Home-IoT');
    expect(result.sent).toEqual(classicOff('rest/wlanconf/65b3c8e1f4a9d20c7e5a1502'));
    expect(result.warnings.join()).toMatch(/did not return its passphrase/);
    expect(wlan(bot, 'Home-IoT').enabled).toBe(false);
  });

  it('the simulator refuses a PUT missing required fields with a 400 in the official error shape', async () => {
    const id = integrationWifiId(wlan(bot, 'Home'));
    const url = `${bot.sim.url}/proxy/network/integration/v1/sites/${SITE}/wifi/broadcasts/${id}`;
    const answer = await fetch(url, {
      method: 'PUT',
      headers: { 'X-API-KEY': bot.sim.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'STANDARD', name: 'Home', enabled: false }),
    });
    expect(answer.status).toBe(400);
    const error = (await answer.json()) as Record<string, unknown>;
    expect(error).toMatchObject({ statusCode: 400, statusName: 'BAD_REQUEST' });
    expect(String(error.message)).toMatch(/securityConfiguration|hideName/);
    expect(wlan(bot, 'Home').enabled).toBe(true);
  });
});

describe('Wi-Fi tools on a 9.0 console (classic wlanconf, as before)', () => {
  const bot = useTestBot({ simulator: { apiVersion: '9.0' } });

  it('lists by wlanconf _id and toggles with the one-key classic PUT, asking no official Wi-Fi route', async () => {
    const list = (await bot.run('list_wifi_broadcasts', {})) as Broadcast[];
    expect(list.map((b) => b.id)).toEqual(bot.site().wlans.map((w) => w._id));
    const result = await turnOff(bot, 'Guest WiFi');
    expect(result.sent).toEqual(classicOff(`rest/wlanconf/${GUEST_CLASSIC_ID}`));
    expect(bot.sim.requests.filter((r) => r.route.includes('wifi/broadcasts'))).toEqual([]);
  });

  it('a 9.0 console has no official Wi-Fi route (404, as a real older console)', async () => {
    const answer = await fetch(`${bot.sim.url}/proxy/network/integration/v1/sites/${SITE}/wifi/broadcasts`, {
      headers: { 'X-API-KEY': bot.sim.apiKey },
    });
    expect(answer.status).toBe(404);
  });
});

describe('Wi-Fi tools on a 10.1 console without an API key (a session reaches only classic)', () => {
  const bot = useTestBot({ gateway: { apiKey: undefined, username: 'admin', password: 'simulator' } });

  it('lists and toggles through classic wlanconf, asking no Integration route', async () => {
    const list = (await bot.run('list_wifi_broadcasts', {})) as Broadcast[];
    expect(list.map((b) => b.id)).toEqual(bot.site().wlans.map((w) => w._id));
    const result = await turnOff(bot, 'Home');
    expect(result.sent).toMatchObject({ api: 'classic', path: 'rest/wlanconf/65b3c8e1f4a9d20c7e5a1501' });
    expect(bot.sim.requests.filter((r) => r.route.startsWith('/integration/'))).toEqual([]);
  });
});

describe('revert of a toggle on a 10.1 console', () => {
  const bot = useTestBot();
  let data: ReturnType<typeof tempDataDir>;
  let store: FileStore;
  let approvals: Approvals;
  beforeEach(async () => {
    ({ data, store, approvals } = await approvalsInTempDir(bot.app));
  });
  afterEach(async () => {
    await store.close();
    data.remove();
  });

  async function approveAll(id: string) {
    const first = await approvals.approve(id, ALEX);
    return first.kind === 'endorsed' ? approvals.approve(id, STAN) : first;
  }

  it.each([
    ['its name', () => 'Home'],
    ['its classic _id (older journals and baselines)', () => wlan(bot, 'Home')._id],
  ])('puts the SSID back on through the official PUT, by its official id (toggled by %s)', async (_, ref) => {
    const request = await approvals.propose({
      tool: 'set_wifi_broadcast_enabled',
      args: { wifi_id: ref(), enabled: false },
      requester: RITA,
    });
    expect(JSON.stringify(request.preview)).not.toContain(String(wlan(bot, 'Home').x_passphrase));
    const off = await approveAll(request.id);
    expect(off.kind).toBe('succeeded');
    expect(wlan(bot, 'Home').enabled).toBe(false);
    bot.sim.clearRequests();
    const revert = await approvals.proposeRevert({ changeId: request.id, requester: RITA });
    expect(revert.args).toMatchObject({ wifi_id: integrationWifiId(wlan(bot, 'Home')), enabled: true });
    const back = await approveAll(revert.id);
    expect(back.kind).toBe('succeeded');
    expect(wlan(bot, 'Home').enabled).toBe(true);
    expect(bot.writes().map((w) => `${w.method} ${w.route}`)).toEqual([
      `PUT /integration/v1/sites/${SITE}/wifi/broadcasts/${integrationWifiId(wlan(bot, 'Home'))}`,
    ]);
  });
});
