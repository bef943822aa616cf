import { describe, expect, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/types.js';
import { MemoryStore } from '../../../src/lib/json-file-store.js';
import { silentLogger } from '../../../src/log.js';
import type { ChangeSpec } from '../../../src/tools/core/change-spec.js';
import { onSameConsole } from '../../../src/tools/core/console-spec.js';
import type { ConsolePort, ToolContext } from '../../../src/tools/core/context.js';

const spec: ChangeSpec = {
  kind: 'update',
  beforeRead: (args) => ({
    kind: 'network',
    ref: String(args.network_id),
    tool: 'get_network_details',
    args: { site_id: args.site_id, network_id: args.network_id },
  }),
  afterRead: (args) => ({
    kind: 'network',
    ref: String(args.network_id),
    tool: 'direct',
    args: {},
    direct: async (context) => (context.gateway as unknown as { name: string }).name,
  }),
  inverse: ({ args, before }) =>
    before
      ? { tool: 'update_network', args: { site_id: args.site_id, name: before.name }, notes: [] }
      : { reason: 'no before' },
};

const gatewayNamed = (name: string) => ({ name }) as unknown as Gateway;
const consoles: ConsolePort = {
  fleet: true,
  readBudgetMs: 1000,
  list: () => [],
  gateway: (name) => gatewayNamed(name),
  channel: () => undefined,
};
const context: ToolContext = {
  gateway: gatewayNamed('background'),
  logger: silentLogger(),
  store: new MemoryStore(),
  consoles,
};

describe('a change spec kept on the console of its write', () => {
  const kept = onSameConsole(spec);
  const args = { console: 'munich', site_id: 'default', network_id: 'IoT' };

  it('reads before and after on the write’s console, a direct read through that console’s gateway', async () => {
    expect(kept.beforeRead?.(args).args).toEqual({
      console: 'munich',
      site_id: 'default',
      network_id: 'IoT',
    });
    const after = kept.afterRead?.(args, {}, null);
    expect(after?.args).toEqual({ console: 'munich' });
    expect(await after?.direct?.(context)).toBe('munich');
  });

  it('undoes it on the same console, and leaves a call without console= as the spec built it', () => {
    const input = { args, preview: {}, result: {}, before: { name: 'IoT' }, after: null };
    expect(kept.inverse(input)).toEqual({
      tool: 'update_network',
      args: { console: 'munich', site_id: 'default', name: 'IoT' },
      notes: [],
    });
    expect(kept.inverse({ ...input, before: null })).toEqual({ reason: 'no before' });
    const single = { site_id: 'default', network_id: 'IoT' };
    expect(kept.beforeRead?.(single)).toEqual(spec.beforeRead?.(single));
    expect(kept.inverse({ ...input, args: single })).toEqual(spec.inverse({ ...input, args: single }));
  });
});
