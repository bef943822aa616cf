import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { useMcpBot } from '../helpers/mcp.js';

// Every new tool describes every argument and declares its output, and its answers conform.
const CALLS: { tool: string; args: Record<string, unknown> }[] = [
  { tool: 'list_clients', args: { network_id: 'IoT' } },
  { tool: 'get_client', args: { client: '10.40.0.23' } },
  { tool: 'list_devices', args: { state: 'offline' } },
  { tool: 'get_device', args: { device_id: 'Core Switch' } },
];

const bot = useMcpBot();

describe('the on-call read tools over MCP', () => {
  it('describe every argument and declare an output schema that their answers satisfy', async () => {
    const { tools } = await bot.client.listTools();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const { tool, args } of CALLS) {
      const listed = tools.find((t) => t.name === tool);
      if (!listed) throw new Error(`${tool} is not listed`);
      const properties = Object.entries(listed.inputSchema.properties ?? {}) as [
        string,
        { description?: string },
      ][];
      for (const [name, schema] of properties) expect(schema.description, `${tool}.${name}`).toBeTruthy();
      expect(listed.outputSchema, tool).toBeDefined();
      const result = await bot.call(tool, args);
      expect(result.isError, tool).toBeFalsy();
      const validate = ajv.compile(listed.outputSchema ?? {});
      expect(validate(result.structuredContent), `${tool}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
