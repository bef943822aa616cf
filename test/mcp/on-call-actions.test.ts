import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { outputSchemaOf } from '../../src/mcp/tool-catalog.js';
import { clientActionTools } from '../../src/tools/clients/client-actions.js';
import { hotspotTools } from '../../src/tools/clients/hotspot.js';
import { deviceActionTools } from '../../src/tools/devices/device-actions.js';
import { createRegistry } from '../../src/tools/index.js';
import { wifiBroadcastTools } from '../../src/tools/wifi/wifi-broadcasts.js';
import { useMcpBot } from '../helpers/mcp.js';

// The on-call tools over MCP. The SDK's client checks every structured result against the tool's
// output schema (a result that does not match is an error on the client), so these calls prove the
// schemas describe what the tools really answer.
const ON_CALL = [...deviceActionTools, ...clientActionTools, ...hotspotTools, ...wifiBroadcastTools].map(
  (t) => t.name,
);

describe('the on-call actions over MCP (MCP_WRITES=confirm)', () => {
  const bot = useMcpBot({ label: 'U0ALICE' });

  it('lists each with a description on every argument, an output schema and its annotations', async () => {
    const { tools } = await bot.client.listTools();
    for (const name of ON_CALL) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      const properties = (tool?.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [arg, schema] of Object.entries(properties)) {
        expect(schema.description, `${name}.${arg}`).toMatch(/\w{3}/);
      }
      expect(tool?.outputSchema?.type, name).toBe('object');
    }
    const restart = tools.find((t) => t.name === 'restart_device');
    expect(restart?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(tools.find((t) => t.name === 'list_vouchers')?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('answers reads, previews and confirmed writes that match their output schemas', async () => {
    const vouchers = await bot.call('list_vouchers');
    expect(vouchers.isError).toBeUndefined();
    expect((vouchers.structuredContent as { result: { note: string }[] }).result.map((v) => v.note)).toEqual([
      'Front desk',
      'Conference room',
    ]);
    const wifi = await bot.call('list_wifi_broadcasts');
    expect((wifi.structuredContent as { result: unknown[] }).result).toHaveLength(3);

    const preview = await bot.call('power_cycle_port', {
      device_id: 'Core Switch',
      port_idx: 7,
      dry_run: true,
    });
    expect(preview.isError).toBeUndefined();
    expect(preview.structuredContent).toMatchObject({
      dry_run: true,
      would_send: { body: { action: 'POWER_CYCLE' } },
    });
    expect(bot.writes()).toEqual([]);

    const done = await bot.call('power_cycle_port', { device_id: 'Core Switch', port_idx: 7, confirm: true });
    expect(done.isError).toBeUndefined();
    expect(done.structuredContent).toMatchObject({ success: true, port: { idx: 7 } });
    const created = await bot.call('create_vouchers', { count: 1, minutes: 30, confirm: true });
    expect(created.isError).toBeUndefined();
    expect(bot.writes().map((w) => w.route.split('/').slice(-2).join('/'))).toEqual([
      '7/actions',
      'hotspot/vouchers',
    ]);
  });

  it('refuses a missing device with the candidates, as a tool error, sending nothing', async () => {
    const before = bot.writes().length;
    const result = await bot.call('restart_device', { device_id: 'Basement Switch', confirm: true });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('did you mean');
    expect(bot.writes()).toHaveLength(before);
  });
});

describe("a write's output schema by write mode", () => {
  const registry = createRegistry('default');
  const validator = (writes: 'approval' | 'confirm') =>
    new Ajv2020({ strict: false }).compile(outputSchemaOf(registry.require('restart_device'), writes) ?? {});
  const changeRequest = { change_request_id: 'cr-1', state: 'pending', preview: { dry_run: true } };

  it('accepts the change request in approval mode only, and always the preview and the error', () => {
    expect(validator('approval')(changeRequest)).toBe(true);
    expect(validator('confirm')(changeRequest)).toBe(false);
    for (const writes of ['approval', 'confirm'] as const) {
      expect(validator(writes)({ dry_run: true, warnings: ['x'] })).toBe(true);
      expect(
        validator(writes)({ error: { code: 'not_found', message: 'device x not found', fields: [] } }),
      ).toBe(true);
      expect(validator(writes)({ something: 'else' })).toBe(false);
    }
  });

  it('is left out for a tool that declares no output', () => {
    expect(outputSchemaOf(registry.require('create_network'), 'confirm')).toBeUndefined();
  });
});
