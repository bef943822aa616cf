import { describe, expect, it } from 'vitest';
import { listAliases, resolveCommand, resolveToolCall } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { ValidationError } from '../../src/errors.js';
import { createRegistry } from '../../src/tools/index.js';

const registry = createRegistry('default');
const resolve = (line: string) => resolveCommand(parseCommandLine(line), registry);

describe('/net policy and /net policy check', () => {
  it('`policy` shows the policy; `policy check` takes the rest of the line, key=value words included', () => {
    expect(resolve('/net policy')).toEqual({ tool: 'show_policy', args: {} });
    expect(resolve('/net policy check delete_network network_id=IoT')).toEqual({
      tool: 'check_policy',
      args: { command: 'delete_network network_id=IoT' },
    });
    // Quoted values keep their spaces when the line is put back together.
    const quoted = resolve('/net policy check set_wifi_broadcast_enabled wifi_id="Guest WiFi" enabled=false');
    expect(quoted.args.command).toBe('set_wifi_broadcast_enabled wifi_id="Guest WiFi" enabled=false');
    expect(resolveToolCall(String(quoted.args.command), registry)).toEqual({
      tool: 'set_wifi_broadcast_enabled',
      access: 'write',
      args: { site_id: 'default', wifi_id: 'Guest WiFi', enabled: false },
    });
  });

  it('`policy check` alone asks for the command; help lists both forms', () => {
    expect(() => resolve('/net policy check')).toThrow(ValidationError);
    expect(listAliases(registry).map((a) => a.usage)).toEqual(
      expect.arrayContaining(['policy', 'policy check <command>']),
    );
  });

  it('resolveToolCall refuses what the command itself would refuse', () => {
    expect(() => resolveToolCall('delete_network netwrk_id=IoT', registry)).toThrow(
      /not an argument of delete_network/,
    );
    expect(() => resolveToolCall('frobnicate', registry)).toThrow(ValidationError);
  });
});
