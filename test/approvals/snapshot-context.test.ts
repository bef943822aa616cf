import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { snapshotContext } from '../../src/approvals/snapshot-context.js';
import type { ToolContext } from '../../src/tools/core/define-tool.js';

// A preview and its blast radius share one fresh snapshot of the controller.
function countingContext(failFirst = false) {
  const calls: { path: string; options: unknown }[] = [];
  let failures = failFirst ? 1 : 0;
  const gateway = {
    async classicRead(_site: string, path: string, _schema: unknown, options: unknown) {
      calls.push({ path, options });
      if (failures > 0) {
        failures -= 1;
        throw new Error('controller unreachable');
      }
      return { items: [{ path }], skipped: 0 };
    },
    async classicWrite() {
      return ['written'];
    },
  };
  return { calls, context: { gateway } as unknown as ToolContext };
}

const A = z.object({ path: z.string() });
const B = z.object({ path: z.string() }).passthrough();

describe('snapshotContext', () => {
  it('reads each resource once, fresh, for every caller within one snapshot', async () => {
    const { calls, context } = countingContext();
    const snapshot = snapshotContext(context);

    const [first, second] = await Promise.all([
      snapshot.gateway.classicRead('default', 'stat/sta', A),
      snapshot.gateway.classicRead('default', 'stat/sta', A, { fresh: true }),
    ]);
    await snapshot.gateway.classicRead('default', 'stat/device', A);

    expect(first).toBe(second);
    expect(calls).toEqual([
      { path: 'stat/sta', options: { fresh: true } },
      { path: 'stat/device', options: { fresh: true } },
    ]);
  });

  it('keeps reads parsed with another schema, other sites and new snapshots apart', async () => {
    const { calls, context } = countingContext();
    const one = snapshotContext(context);
    await one.gateway.classicRead('default', 'stat/sta', A);
    await one.gateway.classicRead('default', 'stat/sta', B);
    await one.gateway.classicRead('other', 'stat/sta', A);
    await snapshotContext(context).gateway.classicRead('default', 'stat/sta', A);

    expect(calls).toHaveLength(4);
  });

  it('does not keep a failed read, and leaves writes alone', async () => {
    const { calls, context } = countingContext(true);
    const snapshot = snapshotContext(context);
    await expect(snapshot.gateway.classicRead('default', 'stat/sta', A)).rejects.toThrow('unreachable');
    await expect(snapshot.gateway.classicRead('default', 'stat/sta', A)).resolves.toMatchObject({
      items: [{ path: 'stat/sta' }],
    });
    expect(await snapshot.gateway.classicWrite('default', 'POST', 'rest/networkconf', {})).toEqual([
      'written',
    ]);
    expect(calls).toHaveLength(2);
  });
});
