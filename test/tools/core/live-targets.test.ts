import { describe, expect, it } from 'vitest';
import { ResourceNotFoundError, ValidationError } from '../../../src/errors.js';
import { DEMO_DEVICES } from '../../../src/simulator/index.js';
import {
  clientLabel,
  deviceLabel,
  findClient,
  findLiveDevice,
  resolveClient,
  resolveDevice,
} from '../../../src/tools/core/live-targets.js';
import { rejection, useTestBot } from '../../helpers/tool-test.js';

const bot = useTestBot();
const context = () => ({ gateway: bot.app.context.gateway, site: 'default' });

describe('resolveClient', () => {
  it('finds a client by MAC in any notation, by IP, by name and by hostname', async () => {
    for (const value of ['9c:b6:d0:4e:11:07', '9C-B6-D0-4E-11-07', '9cb6.d04e.1107', '9CB6D04E1107']) {
      expect(clientLabel(await resolveClient(context(), value))).toBe('Living Room "Big" TV');
    }
    expect((await resolveClient(context(), '10.30.0.24')).hostname).toBe('Galaxy-S23');
    expect((await resolveClient(context(), 'galaxy-s23')).mac).toBe('f2:3c:91:0a:bb:1a');
    expect((await resolveClient(context(), '  hue bridge ')).ip).toBe('10.20.0.10');
  });

  it('reads stat/sta once and nothing else', async () => {
    await resolveClient(context(), 'Hue Bridge');
    expect(bot.sim.requests.map((r) => `${r.method} ${r.route}`)).toEqual(['GET /api/s/default/stat/sta']);
  });

  it('refuses an unknown client naming the close candidates', async () => {
    const error = await rejection(resolveClient(context(), 'Sonos'));
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error.message).toContain('Küche Lautsprecher');
    expect(error.message).toContain('Sonos Beam');
    const none = await rejection(resolveClient(context(), 'zzz-nothing'));
    expect(none).toBeInstanceOf(ResourceNotFoundError);
    expect(none.message).toContain('list_clients search=');
    const mac = await rejection(resolveClient(context(), '00:00:00:00:00:01'));
    expect(mac).toBeInstanceOf(ResourceNotFoundError);
  });

  it('refuses a name two clients share, naming both with their MACs', async () => {
    const clients = [
      { mac: 'aa:aa:aa:aa:aa:01', name: 'Phone', ip: '10.0.0.1' },
      { mac: 'aa:aa:aa:aa:aa:02', name: 'phone', ip: '10.0.0.2' },
    ];
    let caught: unknown;
    try {
      findClient(clients, 'PHONE');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).issues[0]).toMatchObject({ field: 'client' });
    expect((caught as Error).message).toContain('Phone (aa:aa:aa:aa:aa:01), phone (aa:aa:aa:aa:aa:02)');
    // A name wins over another client's hostname; the MAC always picks one.
    expect(findClient([...clients, { mac: 'aa:aa:aa:aa:aa:03', hostname: 'tablet' }], 'tablet').mac).toBe(
      'aa:aa:aa:aa:aa:03',
    );
    expect(findClient(clients, 'AA:AA:AA:AA:AA:02').name).toBe('phone');
  });

  it('refuses an empty value as a validation error', () => {
    expect(() => findClient([], '  ')).toThrow(ValidationError);
  });
});

describe('resolveDevice', () => {
  it('finds a device by id, MAC in any notation, or name', async () => {
    const core = DEMO_DEVICES.coreSwitch;
    for (const value of [core.id, core.mac, core.mac.toUpperCase().replaceAll(':', '-'), 'core switch']) {
      expect(deviceLabel(await resolveDevice(context(), value))).toBe('Core Switch');
    }
  });

  it('refuses an unknown device listing the devices', async () => {
    const error = await rejection(resolveDevice(context(), 'Attic AP'));
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error.message).toContain('Living Room AP');
    const partial = await rejection(resolveDevice(context(), 'switch'));
    expect(partial.message).toContain('Core Switch, Office Switch');
    expect(partial.message).not.toContain('Living Room AP');
  });

  it('refuses a name two devices share', () => {
    const devices = [
      { _id: '1', mac: 'aa:aa:aa:aa:aa:01', name: 'AP' },
      { _id: '2', mac: 'aa:aa:aa:aa:aa:02', name: 'AP' },
    ];
    expect(() => findLiveDevice(devices, 'ap')).toThrow(/matches 2 devices: AP \(aa:aa:aa:aa:aa:01\), AP/);
    expect(findLiveDevice(devices, '2').mac).toBe('aa:aa:aa:aa:aa:02');
  });
});
