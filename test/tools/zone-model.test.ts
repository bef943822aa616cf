import { describe, expect, it } from 'vitest';
import { NotSupportedError } from '../../src/errors.js';
import { zoneRecordSchema } from '../../src/records/zone-record.js';
import {
  assertEditable,
  editableOf,
  moveBodies,
  planMoves,
  toZone,
} from '../../src/tools/firewall/zone-model.js';
import type { NetworkIds } from '../../src/tools/networks/network-ids.js';

const zone = (id: string, networkIds: string[], metadata?: Record<string, unknown>) =>
  zoneRecordSchema.parse({ id, name: id.toUpperCase(), networkIds, metadata });
const network = (uuid: string): NetworkIds => ({ id: `c-${uuid}`, uuid, name: uuid });

describe('zone rights', () => {
  it('gives user zones everything, configurable system zones their networks, others nothing', () => {
    expect(editableOf(zone('a', []))).toBe('all');
    expect(editableOf(zone('b', [], { origin: 'SYSTEM_DEFINED', configurable: true }))).toBe('networks');
    expect(editableOf(zone('c', [], { origin: 'SYSTEM_DEFINED' }))).toBe('none');
    expect(() =>
      assertEditable(zone('b', [], { origin: 'SYSTEM_DEFINED', configurable: true }), 'networks'),
    ).not.toThrow();
    expect(() =>
      assertEditable(zone('b', [], { origin: 'SYSTEM_DEFINED', configurable: true }), 'rename'),
    ).toThrow(NotSupportedError);
    expect(() => assertEditable(zone('a', []), 'delete')).not.toThrow();
  });

  it('shows members in classic form with their names', () => {
    expect(toZone(zone('a', ['u1']), [network('u1')], 'note')).toEqual({
      id: 'a',
      name: 'A',
      description: 'note',
      network_ids: ['c-u1'],
      network_names: ['u1'],
      origin: 'USER_DEFINED',
      editable: 'all',
    });
  });
});

describe('moves', () => {
  const zones = [
    zone('a', ['u1', 'u2', 'u3']),
    zone('b', ['u4']),
    zone('x', ['u9'], { origin: 'SYSTEM_DEFINED' }),
  ];

  it('plans a move for each member now in another zone, and one PUT per zone giving networks up', () => {
    const target = zones[1];
    const moves = planMoves(zones, target, [network('u1'), network('u3'), network('u4'), network('u5')]);
    expect(moves.map((m) => [m.network.uuid, m.from.id])).toEqual([
      ['u1', 'a'],
      ['u3', 'a'],
    ]);
    expect(moveBodies(moves)).toEqual([
      { zone: zones[0], body: { name: 'A', networkIds: ['u2'] }, left: ['u1', 'u3'] },
    ]);
  });

  it('refuses to take a network from a zone that cannot change', () => {
    expect(() => planMoves(zones, undefined, [network('u9')])).toThrow(
      'network u9 is in zone "X", which is system-defined and cannot give it up',
    );
  });
});
