import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayUnavailableError, ResourceNotFoundError } from '../../src/errors.js';
// Deliberately alike: named imports of the module under test, one a line as Biome wraps them; the names differ.
import {
  describeGroupApis,
  groupApis,
  OFFICIAL_SINCE,
  type OfficialOperation,
  offersOfficial,
  operationOfPath,
  parseVersion,
} from '../../src/gateway/capabilities.js';
import { ConsoleVersion } from '../../src/gateway/console-info.js';
import { simulatorOffers } from '../../src/simulator/api-version.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';

describe('the capability table (src/gateway/capabilities.ts)', () => {
  it('reads versions and offers each operation from its first version on', () => {
    expect(parseVersion('10.1.85')).toEqual([10, 1]);
    expect(parseVersion('nope')).toBeUndefined();
    expect(offersOfficial([9, 0], 'devices.action')).toBe(true);
    expect(offersOfficial([9, 0], 'firewall.zones')).toBe(false);
    expect(offersOfficial([9, 4], 'hotspot.vouchers')).toBe(true);
    expect(offersOfficial([10, 1], 'acl-rules.ordering')).toBe(true);
    expect(offersOfficial([11, 0], 'firewall.zones')).toBe(true);
    expect(offersOfficial(undefined, 'info')).toBe(false);
  });

  it('names the operation of every path the bot sends', () => {
    expect(operationOfPath('firewall/zones/abc')).toBe('firewall.zones');
    expect(operationOfPath('acl-rules/ordering')).toBe('acl-rules.ordering');
    expect(operationOfPath('devices/x/interfaces/ports/3/actions')).toBe('devices.port-action');
    expect(operationOfPath('devices/x/actions')).toBe('devices.action');
    expect(operationOfPath('clients?filter=x')).toBe('clients.read');
    expect(operationOfPath('networks/x/references')).toBe('networks.references');
    expect(operationOfPath('hotspot/vouchers/x')).toBe('hotspot.vouchers');
  });

  it('agrees with the simulator on which routes each version offers', () => {
    const routeOf: Record<OfficialOperation, string> = {
      info: '/integration/v1/info',
      sites: '/integration/v1/sites',
      'devices.read': '/integration/v1/sites/:siteId/devices/:id',
      'devices.action': '/integration/v1/sites/:siteId/devices/:deviceId/actions',
      'devices.port-action':
        '/integration/v1/sites/:siteId/devices/:deviceId/interfaces/ports/:portIdx/actions',
      'clients.read': '/integration/v1/sites/:siteId/clients',
      'clients.action': '/integration/v1/sites/:siteId/clients/:clientId/actions',
      'hotspot.vouchers': '/integration/v1/sites/:siteId/hotspot/vouchers',
      networks: '/integration/v1/sites/:siteId/networks',
      'networks.references': '/integration/v1/sites/:siteId/networks/:id/references',
      'firewall.zones': '/integration/v1/sites/:siteId/firewall/zones',
      'firewall.policies': '/integration/v1/sites/:siteId/firewall/policies',
      'firewall.policies.ordering': '/integration/v1/sites/:siteId/firewall/policies/ordering',
      'acl-rules': '/integration/v1/sites/:siteId/acl-rules/:id',
      'acl-rules.ordering': '/integration/v1/sites/:siteId/acl-rules/ordering',
      'traffic-matching-lists': '/integration/v1/sites/:siteId/traffic-matching-lists',
      'wifi.broadcasts': '/integration/v1/sites/:siteId/wifi/broadcasts',
      'dpi.catalogue': '/integration/v1/dpi/categories',
    };
    for (const version of ['9.0', '9.4', '10.1', '10.4']) {
      for (const operation of Object.keys(OFFICIAL_SINCE) as OfficialOperation[]) {
        expect(simulatorOffers(version, routeOf[operation]), `${version} ${operation}`).toBe(
          offersOfficial(parseVersion(version), operation),
        );
      }
    }
  });

  it('says per group which generation it uses, and why a group is not offered', () => {
    const old = groupApis([9, 0]);
    const zones = old.find((g) => g.group === 'firewall-zones');
    // Zones have no private endpoint: an older version is asked, never refused by the table.
    expect(zones?.generations).toEqual(['official']);
    expect(zones?.note).toMatch(/tried: documented from Network 10\.1; refused if this console answers 404/);
    const answered404 = groupApis([9, 0], new Set(['acl-rules.ordering'] as const));
    const acl = answered404.find((g) => g.group === 'acl-rules');
    expect(acl && describeGroupApis(acl)).toBe(
      'not offered (this console answered 404 for ACL rule ordering in its official API)',
    );
    expect(answered404.find((g) => g.group === 'firewall-zones')?.generations).toEqual(['official']);
    expect(groupApis(undefined).find((g) => g.group === 'firewall-zones')?.generations).toEqual([]);
    expect(old.find((g) => g.group === 'hotspot')?.generations).toEqual(['classic']);
    const now = groupApis([10, 1]);
    expect(now.find((g) => g.group === 'hotspot')?.generations).toEqual(['official']);
    expect(now.find((g) => g.group === 'acl-rules')?.generations).toEqual(['official']);
    expect(groupApis(undefined).find((g) => g.group === 'device-actions')?.generations).toEqual(['classic']);
  });
});

describe('the console version (src/gateway/console-info.ts)', () => {
  it('reads info once for concurrent callers, keeps it, and reads again after forget (a reconnect)', async () => {
    let reads = 0;
    let version = '9.0.114';
    const console = new ConsoleVersion(async () => {
      reads += 1;
      return { applicationVersion: version };
    });
    const [a, b] = await Promise.all([console.read(), console.read()]);
    expect(reads).toBe(1);
    expect(a).toBe(b);
    expect(a.version).toBe('9.0.114');
    expect(await console.offers('firewall.zones')).toBe(false);
    version = '10.1.85';
    await console.read();
    expect(reads).toBe(1);
    console.forget();
    expect((await console.read()).version).toBe('10.1.85');
    expect(reads).toBe(2);
    expect(await console.offers('firewall.zones')).toBe(true);
  });

  it('without a key or with info not found there is no official API; other failures are not kept', async () => {
    expect((await new ConsoleVersion(undefined).read()).official).toBe(false);
    const notFound = new ConsoleVersion(async () => {
      throw new ResourceNotFoundError('route', 'info');
    });
    expect(await notFound.offers('devices.action')).toBe(false);
    let fail = true;
    const flaky = new ConsoleVersion(async () => {
      if (fail) throw new GatewayUnavailableError('down');
      return { applicationVersion: '10.1.85' };
    });
    await expect(flaky.read()).rejects.toBeInstanceOf(GatewayUnavailableError);
    expect(flaky.current()).toBeUndefined();
    fail = false;
    expect((await flaky.read()).version).toBe('10.1.85');
  });
});

describe('/healthz shows the console version and the generations (Slack front end over HTTP)', () => {
  let bot: SlackBot;
  beforeAll(async () => {
    bot = await startSlackBot({ simulator: { apiVersion: '9.0' } });
    await bot.app.context.gateway.warmUp('default');
  });
  afterAll(async () => {
    await bot.close();
  });

  it('answers controller.version and each group’s generations', async () => {
    const response = await fetch(`http://127.0.0.1:${bot.port}/healthz`);
    const body = (await response.json()) as {
      controller?: { version: string; official_api: boolean; apis: Record<string, string[]> };
    };
    expect(body.controller).toMatchObject({ version: '9.0.114', official_api: true });
    expect(body.controller?.apis['firewall-zones']).toEqual(['official']);
    expect(body.controller?.apis['device-actions']).toEqual(['official', 'classic']);
    expect(body.controller?.apis.networks).toEqual(['classic']);
  });

  it('App Home’s controller status carries the generations', async () => {
    const status = await bot.app.context.gateway.status('default');
    expect(status.version).toBe('9.0.114');
    expect(status.apis?.find((a) => a.group === 'acl-rules')?.generations).toEqual(['official']);
  });
});
