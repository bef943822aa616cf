import { describe, expect, it } from 'vitest';
import { resolveCommand } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { type HomeModel, homeView } from '../../src/slack/blocks/home.js';
import { viewProblems } from '../../src/slack/blocks/limits.js';
import { READ_MORE_ACTION, readResultMessage } from '../../src/slack/blocks/read-result.js';
import { createRegistry } from '../../src/tools/index.js';

const registry = createRegistry('default');
const resolve = (line: string) => resolveCommand(parseCommandLine(line), registry);

describe('on-call shortcuts', () => {
  it('map who, who on, where, offline, devices and clients to the on-call tools', () => {
    expect(resolve('who on IoT')).toEqual({ tool: 'list_clients', args: { network_id: 'IoT' } });
    expect(resolve('who is on Guest WiFi')).toEqual({
      tool: 'list_clients',
      args: { network_id: 'Guest WiFi' },
    });
    expect(resolve('who is 10.40.0.23')).toEqual({ tool: 'get_client', args: { client: '10.40.0.23' } });
    expect(resolve('who Galaxy-S23')).toEqual({ tool: 'get_client', args: { client: 'Galaxy-S23' } });
    expect(resolve('where is Galaxy-S23')).toEqual({ tool: 'get_client', args: { client: 'Galaxy-S23' } });
    expect(resolve('offline')).toEqual({ tool: 'list_devices', args: { state: 'offline' } });
    expect(resolve('devices state=online')).toEqual({ tool: 'list_devices', args: { state: 'online' } });
    expect(resolve('clients limit=5')).toEqual({ tool: 'list_clients', args: { limit: '5' } });
    // "on" alone is a client called "on", not an empty network.
    expect(resolve('who on')).toEqual({ tool: 'get_client', args: { client: 'on' } });
    expect(() => resolve('who on IoT network_id=Guest')).toThrow(/given twice/);
  });
});

describe('the More button', () => {
  const page = { site_id: 'default', total: 41, offset: 0, next_offset: 20, clients: [{ name: 'A' }] };

  it('comes with a paged answer and carries the same read at the next offset', () => {
    const message = readResultMessage('list_clients', 'default', page, {
      tool: 'list_clients',
      args: { network_id: 'IoT', offset: '0' },
    });
    const actions = message.blocks.find((b) => b.type === 'actions');
    expect(actions).toMatchObject({
      elements: [{ action_id: READ_MORE_ACTION, text: { text: 'More (from 21 of 41)' } }],
    });
    const value = (actions as { elements: { value: string }[] }).elements[0]?.value ?? '';
    expect(JSON.parse(value)).toEqual({ tool: 'list_clients', args: { network_id: 'IoT', offset: 20 } });
  });

  it('is absent on the last page, and when the arguments would not fit in a button', () => {
    const last = readResultMessage(
      'list_clients',
      'default',
      { ...page, next_offset: null },
      {
        tool: 'list_clients',
        args: {},
      },
    );
    expect(last.blocks.some((b) => b.type === 'actions')).toBe(false);
    const huge = readResultMessage('list_clients', 'default', page, {
      tool: 'list_clients',
      args: { search: 'x'.repeat(2100) },
    });
    expect(huge.blocks.some((b) => b.type === 'actions')).toBe(false);
  });
});

describe("App Home's Controller section", () => {
  const model = (offlineDevices?: string[]): HomeModel => ({
    user: 'U0ALEX',
    now: Date.parse('2030-01-01T12:00:00.000Z'),
    site: 'default',
    waiting: { requests: [], total: 0, page: 0 },
    mine: { requests: [], total: 0 },
    recent: [],
    ...(offlineDevices ? { offlineDevices } : {}),
    quickActions: [],
    approvers: [],
    links: new Map(),
  });

  it('names the offline devices, says none, or says nothing when it does not know', () => {
    const text = (m: HomeModel) => JSON.stringify(homeView(m).blocks);
    expect(text(model(['Garage AP', 'Attic <AP>']))).toContain(
      '*Offline devices (2)*\\n:red_circle: Garage AP, Attic &lt;AP&gt;',
    );
    expect(text(model([]))).toContain('*Offline devices*\\n:large_green_circle: none');
    expect(text(model())).not.toContain('Offline devices');
    expect(viewProblems(homeView(model(Array.from({ length: 400 }, (_, i) => `Device ${i}`))))).toEqual([]);
  });
});
