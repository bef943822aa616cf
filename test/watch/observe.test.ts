import { describe, expect, it } from 'vitest';
import { trackConditions } from '../../src/watch/incidents.js';
import { EMPTY_OBSERVED, observeDevices, type WatchedDevice } from '../../src/watch/observe.js';
import type { Incident } from '../../src/watch/types.js';
import { parseAlarm, secretMatches } from '../../src/watch/webhook.js';

const SWITCH = 'aa:bb:cc:00:00:01';
const AP = 'aa:bb:cc:00:00:02';
const CORE = 'aa:bb:cc:00:00:03';

const sw = (poe: { good: boolean; power: number }, enable = true): WatchedDevice => ({
  mac: SWITCH,
  name: 'Office Switch',
  state: 1,
  port_table: [{ port_idx: 5, name: 'Camera', poe_enable: enable, poe_good: poe.good, poe_power: poe.power }],
});
const ap = (uplinkMac: string, port: number): WatchedDevice => ({
  mac: AP,
  name: 'Garage AP',
  state: 1,
  uplink: { uplink_mac: uplinkMac, uplink_remote_port: port },
});

describe('what a poll sees', () => {
  it('a PoE port that stops delivering power is a condition until it delivers again; turned off, none', () => {
    const first = observeDevices([sw({ good: true, power: 4.5 })], EMPTY_OBSERVED);
    expect(first.conditions).toEqual([]);
    const stopped = observeDevices([sw({ good: false, power: 0 })], first.state);
    expect(stopped.conditions).toEqual([
      expect.objectContaining({ kind: 'poe_stopped', subject: 'Office Switch port 5 (Camera)' }),
    ]);
    const still = observeDevices([sw({ good: false, power: 0 })], stopped.state);
    expect(still.conditions).toHaveLength(1);
    expect(observeDevices([sw({ good: true, power: 4 })], still.state).conditions).toEqual([]);
    // An admin turning PoE off is not an incident.
    expect(observeDevices([sw({ good: false, power: 0 }, false)], first.state).conditions).toEqual([]);
  });

  it('an uplink that moves is one event naming both ends', () => {
    const devices = (uplink: WatchedDevice) => [
      { mac: SWITCH, name: 'Office Switch', state: 1 },
      { mac: CORE, name: 'Core Switch', state: 1 },
      uplink,
    ];
    const first = observeDevices(devices(ap(CORE, 8)), EMPTY_OBSERVED);
    expect(first.conditions).toEqual([]);
    const moved = observeDevices(devices(ap(SWITCH, 3)), first.state);
    expect(moved.conditions).toEqual([
      expect.objectContaining({
        kind: 'uplink_changed',
        event: true,
        detail: 'uplink moved from Core Switch port 8 to Office Switch port 3',
      }),
    ]);
    expect(observeDevices(devices(ap(SWITCH, 3)), moved.state).conditions).toEqual([]);
  });

  it('an incident resolves when its condition is gone and reopens within the flap window', () => {
    const incidents: Incident[] = [];
    const down = [{ key: 'device_offline:x', kind: 'device_offline' as const, subject: 'X' }];
    expect(trackConditions(incidents, down, 'default', 0, 120_000).opened).toHaveLength(1);
    expect(trackConditions(incidents, [], 'default', 10_000, 120_000).updated[0]?.resolvedAt).toBe(10_000);
    const again = trackConditions(incidents, down, 'default', 60_000, 120_000);
    expect(again.opened).toEqual([]);
    expect(again.updated[0]).toMatchObject({ flaps: 1, resolvedAt: undefined });
    trackConditions(incidents, [], 'default', 70_000, 120_000);
    expect(trackConditions(incidents, down, 'default', 300_000, 120_000).opened).toHaveLength(1);
  });
});

describe('Alarm Manager bodies and secrets', () => {
  it('reads the usual fields leniently and refuses what names no alarm', () => {
    expect(
      parseAlarm({ data: { title: 'Device offline', device_mac: 'AABBCC000002', device_name: 'Garage AP' } }),
    ).toEqual({
      alarm: {
        key: 'device offline@aabbcc000002',
        name: 'Device offline',
        subject: 'Garage AP',
        detail: 'Device offline',
        mac: AP,
      },
    });
    expect(parseAlarm([1])).toEqual({ error: 'the body must be a JSON object' });
    expect(parseAlarm({ foo: 1 })).toMatchObject({ error: expect.stringContaining('names no alarm') });
  });

  it('compares secrets whole', () => {
    expect(secretMatches('s3cret-s3cret-s3cret', 's3cret-s3cret-s3cret')).toBe(true);
    expect(secretMatches('s3cret-s3cret-s3cre', 's3cret-s3cret-s3cret')).toBe(false);
    expect(secretMatches('s3cret-s3cret-s3creT', 's3cret-s3cret-s3cret')).toBe(false);
    expect(secretMatches(undefined, 's3cret-s3cret-s3cret')).toBe(false);
  });
});
