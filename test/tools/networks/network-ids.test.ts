import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { NotSupportedError, ResourceNotFoundError } from '../../../src/errors.js';
import type { Gateway, ParsedList } from '../../../src/gateway/types.js';
import { NetworkDirectory } from '../../../src/tools/networks/network-ids.js';

const LAN = {
  _id: '65b3c8e1f4a9d20c7e5a0001',
  name: 'LAN',
  external_id: '11111111-1111-4111-8111-111111111111',
};
// A record without external_id: its UUID has to come from Integration /networks, by name.
const LAB = { _id: '65b3c8e1f4a9d20c7e5a0002', name: 'Lab' };
const LAB_UUID = '22222222-2222-4222-8222-222222222222';
const ONLY_INTEGRATION = { id: '33333333-3333-4333-8333-333333333333', name: 'Orchestrated' };

/** A gateway answering networkconf and Integration /networks from fixed lists, counting the reads. */
function fakeGateway(
  reads: string[],
  integration: unknown[] = [
    { id: LAN.external_id, name: 'LAN' },
    { id: LAB_UUID, name: 'lab' },
    ONLY_INTEGRATION,
  ],
): Gateway {
  const list = <T>(path: string, data: unknown[], schema: z.ZodType<T>): ParsedList<T> => {
    reads.push(path);
    return { items: data.map((item) => schema.parse(item)), skipped: 0 };
  };
  const partial: Pick<Gateway, 'apiType' | 'classicRead' | 'integrationList'> = {
    apiType: 'local',
    classicRead: async (_site, path, schema) => list(path, [LAN, LAB], schema),
    integrationList: async (_site, path, schema) => list(path, integration, schema),
  };
  return new Proxy(partial as Gateway, {
    get(target, key) {
      if (key in target) return Reflect.get(target, key);
      throw new Error(`unexpected gateway call ${String(key)}`);
    },
  });
}

describe('NetworkDirectory', () => {
  it('resolves a classic id, a UUID or a name to both ids, reading /networks only when needed', async () => {
    const reads: string[] = [];
    const directory = await NetworkDirectory.load(fakeGateway(reads), 'default');
    const expected = { id: LAN._id, uuid: LAN.external_id, name: 'LAN' };
    expect(await directory.resolve(LAN._id, 'network_id')).toMatchObject(expected);
    expect(await directory.resolve(LAN.external_id, 'network_id')).toMatchObject(expected);
    expect(await directory.resolve('lan', 'network_id')).toMatchObject(expected);
    expect(reads).toEqual(['rest/networkconf']);
  });

  it('takes the UUID of a record without external_id from /networks by name, and reads it once', async () => {
    const reads: string[] = [];
    const directory = await NetworkDirectory.load(fakeGateway(reads), 'default');
    expect(await directory.resolve('Lab', 'network_id')).toMatchObject({ id: LAB._id, uuid: LAB_UUID });
    expect(await directory.describe(LAB_UUID)).toMatchObject({ id: LAB._id, uuid: LAB_UUID, name: 'Lab' });
    expect(reads).toEqual(['rest/networkconf', 'networks']);
  });

  it('keeps a network only the Integration API knows, and an unknown UUID, as UUIDs', async () => {
    const directory = await NetworkDirectory.load(fakeGateway([]), 'default');
    expect(await directory.resolve('orchestrated', 'network_ids')).toEqual({
      id: ONLY_INTEGRATION.id,
      uuid: ONLY_INTEGRATION.id,
      name: 'Orchestrated',
    });
    const stale = '44444444-4444-4444-8444-444444444444';
    expect(await directory.describe(stale)).toEqual({ id: stale, uuid: stale, name: null });
    await expect(directory.resolve('Nope', 'network_id')).rejects.toBeInstanceOf(ResourceNotFoundError);
  });

  it('refuses a networkconf record the Integration API does not list', async () => {
    const directory = await NetworkDirectory.load(fakeGateway([], []), 'default');
    await expect(directory.resolve('Lab', 'network_id')).rejects.toBeInstanceOf(NotSupportedError);
  });
});
