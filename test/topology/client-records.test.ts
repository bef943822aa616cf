import { describe, expect, it } from 'vitest';
import { recordParserOf } from '../../src/records/fast-lenient.js';
import { demoClients } from '../../src/simulator/demo-clients.js';
import { createPrng } from '../../src/simulator/prng.js';
import { topologyClientFields, topologyClientSchema } from '../../src/topology/records.js';
import { fixtureRecords } from '../helpers/fixtures.js';

const ODD = [1, 0, '7', ' 42 ', '', 'abc', null, true, 'false', {}, [], 'aa:bb:cc:dd:ee:ff'];

describe('topology client records (parsed without zod per field)', () => {
  it('have a plain record parser, so a list of 50,000 is parsed the fast way', () => {
    expect(recordParserOf(topologyClientSchema)).toBeTypeOf('function');
  });

  it('parse exactly as the picked zod schema: the same record, or both refuse', () => {
    const clients = [
      ...fixtureRecords('classic/stat-sta.aiounifi.json'),
      ...(demoClients(createPrng(11)) as unknown as Record<string, unknown>[]),
    ] as Record<string, unknown>[];
    expect(clients.length).toBeGreaterThan(10);
    const base = clients[0] as Record<string, unknown>;
    const odd = Object.keys(topologyClientFields.shape).flatMap((key) => [
      (({ [key]: _gone, ...rest }) => rest)(base),
      ...ODD.map((value) => ({ ...base, [key]: value })),
    ]);
    const parse = recordParserOf(topologyClientSchema);
    for (const record of [...clients, ...odd, 'x', null, []]) {
      const slow = topologyClientFields.safeParse(record);
      const quick = topologyClientSchema.safeParse(record);
      expect(quick.success, JSON.stringify(record)).toBe(slow.success);
      if (slow.success && quick.success) {
        expect(quick.data).toStrictEqual(slow.data);
        expect(parse?.(record)).toStrictEqual(slow.data);
      }
    }
  });
});
