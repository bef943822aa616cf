import { describe, expect, it } from 'vitest';
import { resolveCommand } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { cellText, isIdentifierColumn, render } from '../../src/format/plain-text.js';
import { isIdColumn } from '../../src/format/table-layout.js';
import { exampleLine } from '../../src/tools/core/tool-help.js';
import type { ToolDefinition } from '../../src/tools/index.js';
import type { TestBot } from '../helpers/test-bot.js';
import { useTestBots } from '../helpers/tool-test.js';

// Every read tool's table, at 80 and 160 columns, keeps every name, address, place and time whole
// and fits the width; an id column is whole or left out (and the count line says so). It walks the
// registry, so tools added later are covered as soon as they are registered, and a tool marks a
// column of its own with `identifierColumns`.

const [zoneBased, legacy] = useTestBots({}, { simulator: { firewall: 'legacy' } });

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

/**
 * Whether `value` is shown whole: in one piece, or wrapped at its spaces (every word of it a
 * whole word of the text), and never cut with `…`.
 */
function shownWhole(text: string, value: string): boolean {
  if (text.includes(value)) return true;
  const tokens = new Set(text.split(/\s+/));
  const cut = [...text.matchAll(/(\S+)…/g)].some((m) => value.startsWith(m[1] ?? '\u0000'));
  return !cut && value.split(' ').every((word) => word === '' || tokens.has(word));
}

/** The ids a count line says were left out to fit (`--ids shows id, mac`). */
function leftOut(text: string): Set<string> {
  const said = [...text.replace(/\n/g, ' ').matchAll(/--ids shows ([\w, ]+)\)/g)].flatMap((m) =>
    (m[1] ?? '').split(', '),
  );
  return new Set(said);
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

describe('tables keep names, addresses, places and times whole, and fit the width', () => {
  it('covers every read tool of the registry', () => {
    expect(readTools(zoneBased).length).toBeGreaterThanOrEqual(20);
  });

  for (const width of [80, 160]) {
    it(`at ${width} columns every name, address, header and shown id of every read tool is whole`, async () => {
      const checked: string[] = [];
      for (const tool of readTools(zoneBased)) {
        const result = await exampleResult(tool);
        const identifiers = tool.identifierColumns ?? [];
        const text = render(result, { width, identifiers });
        const hidden = leftOut(text);
        for (const rows of tablesOf(result).map((t) => t.slice(0, 40))) {
          const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
          for (const key of columns) {
            const values = rows.map((row) => row[key]);
            if (hidden.has(key)) {
              // Only an id column is ever left out.
              expect(isIdColumn(key, values), `${tool.name}: ${key} left out`).toBe(true);
              continue;
            }
            // A header is never cut: whole (a header line or a `key:` line), or wrapped after `_`;
            // a column moved under its rows with nothing in it has no line to show.
            const empty = values.every((v) => ['-', '(none)', ''].includes(cellText(key, v)));
            expect(empty || headerShown(text, key), `${tool.name}: header ${key} at ${width}\n${text}`).toBe(
              true,
            );
            const cut = [...text.matchAll(/(\S+)…/g)].map((m) => m[1] ?? '');
            expect(
              cut.filter((c) => key.startsWith(c)),
              `${tool.name}: header ${key} cut`,
            ).toEqual([]);
            const declared = isIdentifierColumn(key, values, identifiers);
            for (const value of values) {
              const shown = cellText(key, value);
              if (!declared && !ADDRESS.test(shown)) continue;
              expect(shownWhole(text, shown), `${tool.name}: ${key} = ${shown} at ${width}\n${text}`).toBe(
                true,
              );
              checked.push(`${tool.name}.${key}`);
            }
          }
        }
        // A string result is a file format (DOT, GraphML), printed as it is.
        for (const line of typeof result === 'string' ? [] : text.split('\n')) {
          expect(line.length, `${tool.name} at ${width}: ${line}`).toBeLessThanOrEqual(width);
        }
      }
      // The columns a newcomer found cut are among those checked.
      expect(checked).toEqual(
        expect.arrayContaining([
          'list_traffic_routes.applies_to',
          'list_traffic_routes.match_criteria',
          'list_firewall_policies.source',
          'list_firewall_policies.destination',
          'list_vlans.name',
          'list_clients.where',
        ]),
      );
    });
  }

  it('a table that does not fit stays a table: what does not fit moves under its row, whole', async () => {
    const routes = await zoneBased.run('list_traffic_routes');
    const tool = zoneBased.app.registry.require('list_traffic_routes');
    const text = render(routes, { width: 80, identifiers: tool.identifierColumns ?? [] });
    expect(text.split('\n')[0]).toMatch(/^name\s+action\s/);
    expect(text).toContain('  applies_to: client 00:11:32:8a:bc:04');
    expect(text).toContain('  applies_to: network IoT (VLAN 20)');
    expect(text).toContain('destination_ip=198.51.100.50');
    expect(text).not.toMatch(/enabl…|dscp_…|^enabled: /m);
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

  it('never cuts a column the tool declares: it wraps at its spaces; an undeclared one is cut', () => {
    const declared = render(rows, { width: 40, identifiers: ['applies_to'] });
    expect(shownWhole(declared, 'network Living Room Devices (VLAN 20)')).toBe(true);
    expect(declared).not.toMatch(/network Living Room Devi…/);
    const undeclared = render(rows, { width: 40 });
    expect(undeclared).not.toContain('network Living Room Devices (VLAN 20)');
    expect(undeclared).toContain('…');
  });

  it('wraps a header after `_` instead of cutting it', () => {
    const text = render([{ id: 'a', total_tx_bytes: 5, total_rx_bytes: 7 }], { width: 22 });
    const [first, second] = text.split('\n');
    expect(first).toMatch(/^id\s+total_\s+total_$/);
    expect(second).toMatch(/^\s+tx_bytes\s+rx_bytes$/);
    expect(text).not.toContain('…');
  });
});
