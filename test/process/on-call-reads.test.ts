import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BotProcess,
  runBot,
  slackHttpEnv,
  spawnListeningBot,
  stopAllBots,
} from '../helpers/bot-process.js';
import { buttonBody, commandBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// On-call questions, each one command, answered with names (not counts or MACs).
const SECRET = 'on-call-signing-secret';

afterAll(stopAllBots);

describe.concurrent('on-call reads from the console (`node dist/main.js <command>`)', () => {
  it('"who on IoT" lists the IoT clients by name, with where they are connected', async () => {
    const run = await runBot(['who', 'on', 'IoT']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('filter: network IoT (VLAN 20)');
    for (const name of ['Hue Bridge', 'Kitchen Plug', 'Sonos Beam', 'Nest Thermostat', 'Garage Door']) {
      expect(run.stdout).toContain(name);
    }
    expect(run.stdout).toContain('Core Switch #13');
    expect(run.stdout).not.toContain("Zoë's iPhone");
  });

  it('"who is 10.40.0.23" names the VPN client and where it comes in', async () => {
    const run = await runBot(['who', 'is', '10.40.0.23']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("name: Ana's Laptop (VPN)");
    expect(run.stdout).toContain('connection: vpn');
    expect(run.stdout).toContain('connected_to: VPN via Dream Machine Pro');
    // The address is in the WireGuard server's client pool, and the client is placed on it.
    expect(run.stdout).toContain('network: WireGuard VPN');
  });

  it('"where is Galaxy-S23" names the AP, SSID, band and signal', async () => {
    const run = await runBot(['where', 'is', 'Galaxy-S23']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/connected_to: Living Room AP · Guest WiFi · 5 GHz · -\d+ dBm/);
    expect(run.stdout).toContain('guest_authorization: authorized');
  });

  it('"offline" names the offline device', async () => {
    const run = await runBot(['offline', '--json']);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as {
      offline: string[];
      devices: { name: string; state: string }[];
    };
    expect(answer.offline).toEqual(['Garage AP']);
    expect(answer.devices).toEqual([expect.objectContaining({ name: 'Garage AP', state: 'offline' })]);
  });

  it('refuses an ambiguous-looking or unknown client with the candidates, exit 1', async () => {
    const run = await runBot(['who', 'Sonos']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('client Sonos not found');
    expect(run.stderr).toContain('Küche Lautsprecher, Sonos Beam');
    const device = await runBot(['get_device', 'device_id=Attic']);
    expect(device.code).toBe(1);
    expect(device.stderr).toContain('device Attic not found');
    expect(device.stderr).toContain('Core Switch');
  });
});

describe('on-call reads from Slack (signed HTTP requests, fake Slack)', () => {
  const rig = useSlackRig();
  let bot: BotProcess;
  let events: string;

  const post = async (body: string) => {
    const response = await fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
    return response.status;
  };

  /** Sends `/net <text>` and returns the private answer posted to its response_url. */
  const ask = async (text: string) => {
    const responseUrl = rig.slack.responseUrl();
    expect(await post(commandBody({ text, user_id: 'U1', response_url: responseUrl }))).toBe(200);
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => responseUrl.endsWith(r.path)));
    return rig.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {};
  };

  beforeAll(async () => {
    ({ bot, events } = await spawnListeningBot(slackHttpEnv(rig.slack, SECRET, rig.sim)));
  });

  afterAll(async () => {
    await bot?.stop('SIGKILL');
  });

  it('answers the four questions with names, each in one command', async () => {
    const iot = JSON.stringify(await ask('who on IoT'));
    for (const name of ['Hue Bridge', 'Kitchen Plug', 'Sonos Beam']) expect(iot).toContain(name);
    const vpn = JSON.stringify(await ask('who is 10.40.0.23'));
    expect(vpn).toContain("Ana's Laptop (VPN)");
    expect(vpn).toContain('VPN via Dream Machine Pro');
    const galaxy = JSON.stringify(await ask('where is Galaxy-S23'));
    expect(galaxy).toContain('Living Room AP · Guest WiFi · 5 GHz');
    const offline = JSON.stringify(await ask('offline'));
    expect(offline).toContain('Garage AP');
  });

  it('pages a long list with a More button that brings the next page, never a cut', async () => {
    const first = (await ask('clients limit=15')) as { blocks?: { type: string; elements?: unknown[] }[] };
    const actions = first.blocks?.find((b) => b.type === 'actions');
    const button = actions?.elements?.[0] as { action_id: string; value: string; text: { text: string } };
    expect(button.action_id).toBe('read_more');
    expect(button.text.text).toBe('More (from 16 of 41)');
    expect(JSON.parse(button.value)).toEqual({ tool: 'list_clients', args: { limit: '15', offset: 15 } });
    expect(JSON.stringify(first)).not.toContain('more line(s) not shown');

    const responseUrl = rig.slack.responseUrl();
    const click = buttonBody({
      actionId: 'read_more',
      value: button.value,
      userId: 'U2',
      response_url: responseUrl,
    });
    expect(await post(click)).toBe(200);
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => responseUrl.endsWith(r.path)));
    const second = rig.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body as {
      response_type: string;
      blocks: { type: string; elements?: { value: string }[] }[];
    };
    expect(second.response_type).toBe('ephemeral');
    expect(JSON.stringify(second)).toContain('*offset*\\n15');
    const next = second.blocks.find((b) => b.type === 'actions')?.elements?.[0]?.value ?? '';
    expect(JSON.parse(next)).toMatchObject({ args: { offset: 30 } });
  });

  it('refuses a More button that names a write tool, and nothing reaches the controller', async () => {
    rig.sim.clearRequests();
    const responseUrl = rig.slack.responseUrl();
    const value = JSON.stringify({ tool: 'delete_network', args: { network_id: 'Guest', confirm: true } });
    expect(
      await post(buttonBody({ actionId: 'read_more', value, userId: 'U2', response_url: responseUrl })),
    ).toBe(200);
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => responseUrl.endsWith(r.path)));
    expect(JSON.stringify(rig.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body)).toContain(
      'pages read tools only',
    );
    expect(rig.sim.requests.filter((r) => r.method !== 'GET' && !r.route.includes('/stat/'))).toEqual([]);
  });
});
