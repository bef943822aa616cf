import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConsolesFile } from '../../src/fleet/consoles-file.js';
import { resolveConsoles } from '../../src/fleet/resolve.js';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import { request } from './support.js';

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    consoles: [
      {},
      { reach: 'connector' },
      { down: true },
      { slow: 400 },
      { name: 'boston', version: '10.1', sites: 3 },
    ],
    sites: 2,
  });
});
afterAll(() => fleet.close());
beforeEach(() => {
  for (const each of fleet.consoles) {
    each.clearFaults();
    each.clearRequests();
    each.reset();
  }
  fleet.cloud.clearRequests();
});

const local = (name: string, route: string) => {
  const each = fleet.console(name);
  return request('GET', `${each.url}/proxy/network${route}`, { headers: { 'X-API-KEY': each.apiKey } });
};
const viaConnector = (name: string, route: string) =>
  request(
    'GET',
    `${fleet.cloud.url}/v1/connector/consoles/${fleet.console(name).consoleId}/proxy/network${route}`,
    {
      headers: { 'X-API-KEY': fleet.cloud.apiKey },
    },
  );

describe('startFleet: consoles', () => {
  it('starts each console on its own port with its own version and key', async () => {
    const [berlin, munich, , vienna, boston] = fleet.consoles;

    expect(fleet.consoles.map((c) => c.name)).toEqual(['berlin', 'munich', 'hamburg', 'vienna', 'boston']);
    expect(new Set(fleet.consoles.map((c) => c.url)).size).toBe(5);
    expect(munich?.url).toBeUndefined();
    expect(fleet.consoles.map((c) => c.version)).toEqual(['10.1', '9.0', '10.1', '9.0', '10.1']);
    expect(new Set(fleet.consoles.map((c) => c.apiKey)).size).toBe(5);
    expect((await local('berlin', '/integration/v1/info')).body).toEqual({
      applicationVersion: expect.stringMatching(/^10\.1\./),
    });
    expect((await local('vienna', '/integration/v1/info')).body).toEqual({
      applicationVersion: expect.stringMatching(/^9\.0\./),
    });
    const wrongKey = await request('GET', `${berlin?.url}/proxy/network/integration/v1/info`, {
      headers: { 'X-API-KEY': vienna?.apiKey ?? '' },
    });
    expect(wrongKey.status).toBe(401);
    expect(boston?.siteNames).toHaveLength(3);
  });

  it('gives every console its own sites: "default" first, names and descriptions distinct across consoles', async () => {
    const names = fleet.consoles.flatMap((c) => c.siteNames.slice(1));
    const descs = fleet.consoles.flatMap((c) => c.state.sites.map((s) => s.desc));

    expect(fleet.consoles.every((c) => c.siteNames[0] === 'default')).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(descs).size).toBe(descs.length);
    expect(fleet.console('berlin').state.sites.map((s) => s.desc)).toEqual(['Berlin HQ', 'Berlin Site 2']);
    const sites = (await local('berlin', '/integration/v1/sites')).body as {
      data: { internalReference: string; name: string }[];
    };
    expect(sites.data.map((s) => [s.internalReference, s.name])).toEqual([
      ['default', 'Berlin HQ'],
      [fleet.console('berlin').siteNames[1], 'Berlin Site 2'],
    ]);
  });

  it('serves a second site through the classic API, with its own devices', async () => {
    const second = fleet.console('berlin').siteNames[1] ?? '';

    const devices = (await local('berlin', `/api/s/${second}/stat/device`)).body as {
      data: { name: string }[];
    };

    expect(devices.data.map((d) => d.name)).toContain('Berlin-2 Core Switch');
  });

  it('answers only after its delay when slow', async () => {
    const started = Date.now();
    const slow = await local('vienna', '/integration/v1/info');
    const slowMs = Date.now() - started;

    expect(slow.status).toBe(200);
    expect(slowMs).toBeGreaterThanOrEqual(390);
    expect(fleet.console('vienna').delayMs).toBe(400);
  });

  it('leaves a down console configured but not answering: its port is closed', async () => {
    const hamburg = fleet.console('hamburg');

    expect(hamburg.down).toBe(true);
    await expect(fetch(`${hamburg.url}/proxy/network/integration/v1/info`)).rejects.toThrow();
  });

  it('exposes each console’s controls: a fault and the request log stay on that console', async () => {
    fleet.console('berlin').injectFault({ kind: 'status', status: 500, route: 'stat/device' });

    const boston = await local('boston', '/api/s/default/stat/device');
    const berlin = await local('berlin', '/api/s/default/stat/device');

    expect(boston.status).toBe(200);
    expect(berlin.status).toBe(500);
    expect(fleet.console('berlin').requests.map((r) => r.route)).toEqual(['/api/s/default/stat/device']);
    expect(fleet.console('vienna').requests).toEqual([]);
  });

  it('advances traffic on the one console asked, on the site named', () => {
    const bytes = (name: string, site: number) =>
      (fleet.console(name).state.sites[site]?.clients ?? []).reduce(
        (sum, c) => sum + Number(c.rx_bytes ?? 0) + Number(c['wired-rx_bytes'] ?? 0),
        0,
      );
    const before = [bytes('berlin', 0), bytes('berlin', 1), bytes('boston', 0)];

    fleet.console('berlin').advanceTraffic({ seconds: 60 }, fleet.console('berlin').siteNames[1]);

    expect(bytes('berlin', 0)).toBe(before[0]);
    expect(bytes('berlin', 1)).toBeGreaterThan(before[1] ?? 0);
    expect(bytes('boston', 0)).toBe(before[2]);
  });

  it('resets a console to its own seeded sites, not the single demo site', () => {
    const berlin = fleet.console('berlin');
    berlin.state.sites.pop();
    berlin.reset();

    expect(berlin.state.sites.map((s) => s.desc)).toEqual(['Berlin HQ', 'Berlin Site 2']);
  });
});

describe('startFleet: consolesFile', () => {
  it('describes the fleet in a file the consoles-file module accepts, with secrets only in the env map', () => {
    const { text, env } = fleet.consolesFile();

    const parsed = parseConsolesFile(text, 'fleet.yaml');

    for (const secret of Object.values(env)) expect(text).not.toContain(secret);
    expect(parsed.consoles.map((c) => c.name)).toEqual(fleet.consoles.map((c) => c.name));
    expect(parsed.consoles.find((c) => c.name === 'munich')?.connection).toEqual({
      kind: 'connector',
      consoleId: fleet.console('munich').consoleId,
    });
    expect(parsed.cloud?.url).toBe(fleet.cloud.url);
    expect(parsed.channels.get('C0FLEET02')).toEqual({ kind: 'console', console: 'berlin', site: 'default' });
  });

  it('resolves to connections that reach each answering console, locally or through the connector', async () => {
    const { text, env } = fleet.consolesFile();
    const consoles = resolveConsoles(parseConsolesFile(text, 'fleet.yaml'), env);

    const answers: Record<string, unknown> = {};
    for (const each of consoles) {
      if (each.name === 'hamburg') continue;
      const { connection } = each;
      const url =
        connection.kind === 'local'
          ? `${connection.url}/proxy/network/integration/v1/info`
          : `${connection.cloudUrl}/v1/connector/consoles/${connection.consoleId}/proxy/network/integration/v1/info`;
      const response = await request('GET', url, { headers: { 'X-API-KEY': connection.apiKey } });
      answers[each.name] = response.status;
    }

    expect(answers).toEqual({ berlin: 200, munich: 200, vienna: 200, boston: 200 });
    expect(consoles.find((c) => c.name === 'munich')?.connection.kind).toBe('connector');
  });
});

describe('the connector to fleet consoles', () => {
  it('forwards to the named console’s own state and its request log', async () => {
    const answer = await viaConnector('munich', '/integration/v1/sites');

    expect(answer.status).toBe(200);
    expect((answer.body as { data: { name: string }[] }).data.map((s) => s.name)).toEqual([
      'Munich HQ',
      'Munich Site 2',
    ]);
    expect(fleet.console('munich').requests.map((r) => r.route)).toEqual(['/integration/v1/sites']);
  });

  it('passes a console’s fault through unchanged, and refuses v2 routes', async () => {
    fleet.console('munich').injectFault({ kind: 'rate-limit', retryAfterSeconds: 3, route: '/integration/' });

    const limited = await viaConnector('munich', '/integration/v1/sites');
    const v2 = await viaConnector('munich', '/v2/api/site/default/trafficrules');

    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(limited.body).toMatchObject({ code: 'api.rate-limit.exceeded' });
    expect(v2.status).toBe(403);
    expect(v2.body).toMatchObject({ code: 'FORBIDDEN', httpStatusCode: 403 });
  });

  it('sees a change made on the console behind the bot’s back', async () => {
    const network = fleet.console('munich').state.sites[0]?.networks.find((n) => n.name === 'IoT');
    if (network) network.name = 'IoT Renamed';

    const networks = await viaConnector('munich', '/api/s/default/rest/networkconf');

    expect((networks.body as { data: { name: string }[] }).data.map((n) => n.name)).toContain('IoT Renamed');
  });

  it('answers 502 in the Site Manager schema for a down console, and 404 for an unknown one', async () => {
    const down = await viaConnector('hamburg', '/integration/v1/info');
    const unknown = await request(
      'GET',
      `${fleet.cloud.url}/v1/connector/consoles/NOPE/proxy/network/integration/v1/info`,
      {
        headers: { 'X-API-KEY': fleet.cloud.apiKey },
      },
    );

    expect(down.status).toBe(502);
    expect(down.body).toEqual({
      code: 'BAD_GATEWAY',
      httpStatusCode: 502,
      message: expect.stringContaining('offline'),
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND', message: 'thing not found: NOPE' });
  });
});
