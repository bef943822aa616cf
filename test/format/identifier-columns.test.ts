import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCommand } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { cellText, isIdentifierColumn, render } from '../../src/format/plain-text.js';
import { exampleLine } from '../../src/tools/core/tool-help.js';
import type { ToolDefinition } from '../../src/tools/index.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';

// Issue 19 item 2: every read tool's table, at 80 and 160 columns, keeps every identifier whole.
// It walks the registry, so tools added later (issue 20's list_clients, list_devices…) are covered
// as soon as they are registered, and a tool marks a column of its own with `identifierColumns`.

let zoneBased: TestBot;
let legacy: TestBot;
beforeAll(async () => {
  [zoneBased, legacy] = await Promise.all([
    startTestBot(),
    startTestBot({ simulator: { firewall: 'legacy' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([zoneBased.close(), legacy.close()]);
});

type Row = Record<string, unknown>;
const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every table in a result (the result itself, or a field that is a list of rows or keyed rows). */
function tablesOf(result: unknown): Row[][] {
  if (Array.isArray(result)) return result.length > 0 && result.every(isRow) ? [result] : [];
  if (!isRow(result)) return [];
  const tables: Row[][] = [];
  for (const [key, value] of Object.entries(result)) {
    if (Array.isArray(value) && value.length > 0 && value.every(isRow)) tables.push(value);
    else if (isRow(value) && Object.values(value).length > 0 && Object.values(value).every(isRow)) {
      const column = key.endsWith('s') ? key.slice(0, -1) : 'key';
      tables.push(Object.entries(value).map(([k, row]) => ({ [column]: k, ...(row as Row) })));
    }
  }
  return tables;
}

/** A MAC, IPv4 address or UUID inside a value: whatever its column, it must be shown whole. */
const ADDRESS = /[0-9a-f]{2}(:[0-9a-f]{2}){5}|\d{1,3}(\.\d{1,3}){3}|[0-9a-f]{8}-[0-9a-f]{4}-/i;

/** The header whole, or wrapped after `_` (its pieces, each whole, on the header's lines). */
function headerShown(text: string, key: string): boolean {
  const tokens = new Set(text.split(/\s+/).map((t) => t.replace(/:$/, '')));
  if (tokens.has(key)) return true;
  const words = key.split(/(?<=_)/);
  let i = 0;
  while (i < words.length) {
    let j = words.length;
    while (j > i && !tokens.has(words.slice(i, j).join(''))) j -= 1;
    if (j === i) return false;
    i = j;
  }
  return true;
}

function readTools(bot: TestBot): ToolDefinition[] {
  return bot.app.registry.list().filter((t) => t.access === 'read');
}

async function exampleResult(tool: ToolDefinition): Promise<unknown> {
  const bot = tool.firewall === 'legacy' ? legacy : zoneBased;
  const line = exampleLine(tool);
  if (line === undefined) throw new Error(`${tool.name} has no example`);
  const { args } = resolveCommand(parseCommandLine(line), bot.app.registry);
  return bot.run(tool.name, args);
}

describe('tables never cut an identifier (issue 19)', () => {
  it('covers every read tool of the registry', () => {
    expect(readTools(zoneBased).length).toBeGreaterThanOrEqual(20);
  });

  for (const width of [80, 160]) {
    it(`at ${width} columns every id, name, MAC, address and header of every read tool is whole`, async () => {
      const checked: string[] = [];
      for (const tool of readTools(zoneBased)) {
        const result = await exampleResult(tool);
        const identifiers = tool.identifierColumns ?? [];
        const text = render(result, { width, identifiers });
        for (const rows of tablesOf(result).map((t) => t.slice(0, 40))) {
          const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
          for (const key of columns) {
            // A header is never cut: whole (a header line or a record's `key:`), or wrapped after `_`.
            expect(headerShown(text, key), `${tool.name}: header ${key} at ${width}\n${text}`).toBe(true);
            const cut = [...text.matchAll(/(\S+)…/g)].map((m) => m[1] ?? '');
            expect(
              cut.filter((c) => key.startsWith(c)),
              `${tool.name}: header ${key} cut`,
            ).toEqual([]);
            const values = rows.map((row) => row[key]);
            const declared = isIdentifierColumn(key, values, identifiers);
            for (const value of values) {
              const shown = cellText(key, value);
              if (!declared && !ADDRESS.test(shown)) continue;
              expect(text, `${tool.name}: ${key} = ${shown} at ${width}`).toContain(shown);
              checked.push(`${tool.name}.${key}`);
            }
          }
        }
      }
      // The columns the issue found cut are among those checked.
      expect(checked).toEqual(
        expect.arrayContaining([
          'list_traffic_routes.applies_to',
          'list_traffic_routes.match_criteria',
          'list_firewall_policies.source',
          'list_firewall_policies.destination',
          'list_vlans.name',
        ]),
      );
    });
  }

  it('a table that does not fit shows one block per row rather than cutting', async () => {
    const routes = await zoneBased.run('list_traffic_routes');
    const tool = zoneBased.app.registry.require('list_traffic_routes');
    const text = render(routes, { width: 160, identifiers: tool.identifierColumns ?? [] });
    expect(text).toContain('client 00:11:32:8a:bc:04');
    expect(text).toContain('network IoT (VLAN 20)');
    expect(text).toContain('destination_ip=198.51.100.50');
    expect(text).not.toMatch(/enabl…|dscp_…/);
  });
});

describe('declared identifier columns and wrapped headers', () => {
  const rows = [
    {
      name: 'r1',
      applies_to: 'network Living Room Devices (VLAN 20)',
      note: 'a long description that may be cut',
    },
  ];

  it('never cuts a column the tool declares, and falls back to records when it cannot fit', () => {
    const declared = render(rows, { width: 40, identifiers: ['applies_to'] });
    expect(declared).toContain('network Living Room Devices (VLAN 20)');
    const undeclared = render(rows, { width: 40 });
    expect(undeclared).not.toContain('network Living Room Devices (VLAN 20)');
  });

  it('wraps a header after `_` instead of cutting it', () => {
    const text = render([{ id: 'a', total_tx_bytes: 5, total_rx_bytes: 7 }], { width: 22 });
    const [first, second] = text.split('\n');
    expect(first).toMatch(/^id\s+total_\s+total_$/);
    expect(second).toMatch(/^\s+tx_bytes\s+rx_bytes$/);
    expect(text).not.toContain('…');
  });
});
