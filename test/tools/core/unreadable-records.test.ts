import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { render } from '../../../src/format/plain-text.js';
import { MemoryStore } from '../../../src/lib/json-file-store.js';
import { silentLogger } from '../../../src/log.js';
import { outputSchemaOf } from '../../../src/mcp/tool-catalog.js';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { readResultMessage } from '../../../src/slack/blocks/read-result.js';
import type { ToolContext } from '../../../src/tools/core/define-tool.js';
import { createRegistry } from '../../../src/tools/index.js';
import { nineNetworks, SEVEN_LEFT_OUT } from '../../helpers/odd-records.js';
import { testGateway } from '../../helpers/test-gateway.js';

// Networkconf records the bot cannot read are left out of a list, and the answer says
// how many, from the registry's result to the console and Slack renderings; a cache hit too.

const LINE = SEVEN_LEFT_OUT;

let sim: Simulator;
let context: ToolContext;
const registry = createRegistry('default');

beforeAll(async () => {
  // Networks serve as the sample here on their classic path (networkconf, its faults and stored
  // fields): a 9.0 console. The official path (10.1): tools/networks-official.test.ts.
  sim = await startSimulator({ apiVersion: '9.0' });
  // A read cache, as the bot runs: the second read below is answered from it.
  context = {
    gateway: testGateway(sim, { cacheTtlSeconds: 60 }),
    logger: silentLogger(),
    store: new MemoryStore(),
  };
});
afterEach(() => sim.clearFaults());
afterAll(() => sim?.close());

const injectNine = () => sim.injectFault(nineNetworks());

describe('a list with records the bot cannot read', () => {
  it('carries the count beside the rows, also when answered from the cache', async () => {
    injectNine();
    const before = sim.requests.length;
    const first = await registry.run('list_vlans', {}, context);
    const cached = await registry.run('list_vlans', {}, context);
    // The fault was served once; the second answer came from the cache, with the same count.
    expect(sim.requests.slice(before).filter((r) => r.route.endsWith('rest/networkconf'))).toHaveLength(1);
    for (const result of [first, cached]) {
      const { result: rows, unreadable_records } = result as {
        result: { name: string }[];
        unreadable_records: number;
      };
      expect(rows.map((r) => r.name)).toEqual(['Lab', 'Cameras']);
      expect(unreadable_records).toBe(7);
    }
  });

  it('is said in the console rendering and in the Slack answer', async () => {
    context.gateway.invalidate('default');
    injectNine();
    const result = await registry.run('list_vlans', {}, context);
    const text = render(result);
    expect(text).toMatch(/Lab/);
    expect(text.split('\n').at(-1)).toBe(LINE);
    const message = readResultMessage('list_vlans', 'default', result);
    expect(message.text).toBe(
      'List vlans: 2 row(s); 7 controller records the bot could not read were left out.',
    );
    expect(JSON.stringify(message.blocks)).toContain(LINE);
    expect(JSON.stringify(message.blocks)).not.toContain('unreadable_records');
  });

  it('says nothing when every record was read', async () => {
    context.gateway.invalidate('default');
    const result = await registry.run('list_vlans', {}, context);
    expect(Array.isArray(result)).toBe(true);
    expect(render(result)).not.toMatch(/could not read/);
  });

  it('fits the MCP output schema of a read tool that declares one (the SDK client checks it)', async () => {
    context.gateway.invalidate('default');
    injectNine();
    const result = await registry.run('list_clients', {}, context);
    expect((result as { unreadable_records?: number }).unreadable_records).toBe(7);
    const validate = new Ajv2020({ strict: false }).compile(
      outputSchemaOf(registry.require('list_clients'), 'off') ?? {},
    );
    expect(validate(result), JSON.stringify(validate.errors)).toBe(true);
  });
});
