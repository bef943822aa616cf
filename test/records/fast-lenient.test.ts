import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fastLenientObject } from '../../src/records/fast-lenient.js';
import { demoClients } from '../../src/simulator/demo-clients.js';
import { createPrng } from '../../src/simulator/prng.js';
import { liveClientSchema, liveDeviceSchema } from '../../src/tools/core/live-targets.js';
import { fixtureRecords } from '../helpers/fixtures.js';

// Every kind of value a controller (or a broken one) might put in a field.
const ODD_VALUES: unknown[] = [
  1,
  0,
  -3.5,
  '7',
  ' 42 ',
  '',
  'abc',
  null,
  true,
  false,
  'true',
  'false',
  {},
  { nested: 1 },
  [],
  [1, 2],
  'aa:bb:cc:dd:ee:ff',
];

/** The fast schema's answer equals zod's: both succeed with the same object, or both fail. */
function expectSame(schema: z.ZodObject, fast: z.ZodType, record: unknown): void {
  const slow = schema.safeParse(record);
  const quick = fast.safeParse(record);
  expect(quick.success, JSON.stringify(record)).toBe(slow.success);
  if (slow.success && quick.success) {
    expect(quick.data).toStrictEqual(slow.data);
  }
}

function variants(base: Record<string, unknown>, keys: readonly string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const key of keys) {
    const without = { ...base };
    delete without[key];
    out.push(without);
    for (const value of ODD_VALUES) out.push({ ...base, [key]: value });
  }
  return out;
}

describe('fastLenientObject parses as the zod looseObject it is made from', () => {
  const fastClient = fastLenientObject(liveClientSchema);
  const fastDevice = fastLenientObject(liveDeviceSchema);
  const clients = [
    ...fixtureRecords('classic/stat-sta.aiounifi.json'),
    ...(demoClients(createPrng(7)) as unknown as Record<string, unknown>[]),
  ] as Record<string, unknown>[];

  it('gives the same records for real and simulated stat/sta records', () => {
    expect(clients.length).toBeGreaterThan(10);
    for (const record of clients) expectSame(liveClientSchema, fastClient, record);
  });

  it('agrees on every odd value in every field (and on a missing field), accepted or refused', () => {
    const keys = [...Object.keys(liveClientSchema.shape), 'unknown_field', '__proto__'];
    const base = clients[0] as Record<string, unknown>;
    let refused = 0;
    for (const record of variants(base, keys)) {
      expectSame(liveClientSchema, fastClient, record);
      if (!liveClientSchema.safeParse(record).success) refused += 1;
    }
    // The fuzz reaches the refusals too (an object where a number goes, a missing MAC).
    expect(refused).toBeGreaterThan(50);
  });

  it('returns a record already in the parsed form as it is, and copies one that is not', () => {
    const record = { mac: 'aa:bb:cc:dd:ee:ff', vlan: 20, name: 'cam', is_wired: true, extra: { x: 1 } };
    expect(fastClient.parse(record)).toBe(record);
    const odd = { ...record, vlan: '20' };
    const parsed = fastClient.parse(odd) as Record<string, unknown>;
    expect(parsed).not.toBe(odd);
    expect(parsed.vlan).toBe(20);
    expect(odd.vlan).toBe('20');
  });

  it('refuses what is not a record, naming the field of a bad one', () => {
    for (const value of [null, 3, 'x', [], [{ mac: 'a' }]]) expectSame(liveClientSchema, fastClient, value);
    const bad = fastClient.safeParse({ mac: 'aa:bb:cc:dd:ee:ff', vlan: {} });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['vlan']);
  });

  it('drops unknown keys for a z.object, as zod does', () => {
    const narrow = z.object({ mac: liveClientSchema.shape.mac, name: liveClientSchema.shape.name });
    const fast = fastLenientObject(narrow);
    for (const record of clients) expectSame(narrow, fast, record);
    for (const record of variants(clients[0] as Record<string, unknown>, ['mac', 'name', 'extra']))
      expectSame(narrow, fast, record);
    expect(Object.keys(fast.parse({ mac: 'aa', name: 'x', extra: 1 }) as object)).toEqual(['mac', 'name']);
  });

  it('keeps nested fields (port tables, radios) through their own schemas', () => {
    const devices = [
      'classic/stat-device.aiounifi.json',
      'classic/stat-device.unpoller-uap.json',
      'classic/stat-device.unpoller-ugw.json',
      'classic/stat-device.unpoller-usw.json',
    ].flatMap((file) => fixtureRecords(file)) as Record<string, unknown>[];
    for (const record of devices) expectSame(liveDeviceSchema, fastDevice, record);
    const base = devices[0] as Record<string, unknown>;
    for (const record of variants(base, [
      'port_table',
      'uplink',
      'last_uplink',
      'mac',
      '_id',
      'name',
      'uptime',
    ]))
      expectSame(liveDeviceSchema, fastDevice, record);
  });

  it('drops the bad rows of a port table as lenientArray does, and copies no port table already in the parsed form', () => {
    const base = fixtureRecords('classic/stat-device.unpoller-usw.json')[0] as Record<string, unknown>;
    const rows = (base.port_table as Record<string, unknown>[]).slice(0, 4);
    expect(rows.length).toBe(4);
    const odd = [
      rows[0],
      'not a row',
      { ...rows[1], port_idx: 'x' },
      null,
      { ...rows[2], speed: '1000' },
      [],
      rows[3],
    ];
    for (const port_table of [odd, [], [null], rows.map((row) => ({ ...row, up: 'true' }))])
      expectSame(liveDeviceSchema, fastDevice, { ...base, port_table });
    // A port table already in the parsed form comes back as it is.
    const parsed = fastDevice.parse(base) as Record<string, unknown>;
    const again = fastDevice.parse(parsed) as Record<string, unknown>;
    expect(again).toStrictEqual(parsed);
    expect(again.port_table).toBe(parsed.port_table);
    expect(parsed.port_table).toBe(base.port_table);
    // One that is not is copied, its rows decoded.
    const stringy = rows.map((row) => ({ ...row, up: 'true' }));
    const decoded = fastDevice.parse({ ...base, port_table: stringy }) as { port_table: { up: unknown }[] };
    expect(decoded.port_table).not.toBe(stringy);
    expect(decoded.port_table.map((row) => row.up)).toEqual([true, true, true, true]);
  });
});
