import { describe, expect, it } from 'vitest';
import { loadNetworks } from '../../../src/tools/networks/network-source.js';
import { useSimulator } from '../../helpers/shared-simulator.js';
import { testGateway } from '../../helpers/test-gateway.js';

describe('loadNetworks on a 10.1 console: official records mapped once per answer', () => {
  const sim = useSimulator();

  it('gives readers of one cached answer the same records, and a new answer new records with its values', async () => {
    // Arrange: a gateway with its read cache on, as a deployed bot has.
    const gateway = testGateway(sim, { cacheTtlSeconds: 60 });

    // Act: two reads served by one answer.
    const first = await loadNetworks(gateway, 'default');
    const second = await loadNetworks(gateway, 'default');

    // Assert: one official answer, its records shared (each reader still gets its own list).
    expect(first.official).toBe(true);
    expect(first.records.length).toBeGreaterThan(1);
    expect(second.records).not.toBe(first.records);
    second.records.forEach((record, i) => {
      expect(record).toBe(first.records[i]);
    });

    // Act: the network renamed on the console, then the cache invalidated (as a write does).
    const iot = sim.state.site('default')?.networks.find((n) => n.name === 'IoT');
    if (!iot) throw new Error('the demo site has no IoT network');
    iot.name = 'IoT-renamed';
    gateway.invalidate('default');
    const third = await loadNetworks(gateway, 'default');

    // Assert: the new answer is mapped afresh and shows the new name.
    const renamed = third.records.find((r) => r._id === iot.external_id);
    expect(renamed?.name).toBe('IoT-renamed');
    expect(first.records.find((r) => r._id === iot.external_id)?.name).toBe('IoT');
    expect(third.records.some((record) => first.records.includes(record))).toBe(false);
  });
});
