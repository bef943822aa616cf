import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC_PATH, configurationMarkdown } from '../../scripts/config-reference.js';
import { generatedToolTable, TOOLS_DOC_PATH, toolTableIn } from '../../scripts/tool-table.js';
import { ENV_VARIABLES, loadConfig } from '../../src/config.js';
import { createRegistry } from '../../src/tools/index.js';

const toolsDoc = readFileSync(TOOLS_DOC_PATH, 'utf8');
const configurationDoc = readFileSync(CONFIGURATION_DOC_PATH, 'utf8');
const envExample = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');

/** The rows of docs/configuration.md: variable → its default and rule cells. */
function configurationRows(doc: string): Map<string, { defaultCell: string; rule: string }> {
  const rows = new Map<string, { defaultCell: string; rule: string }>();
  for (const match of doc.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]*) \| ((?:[^|\\]|\\.)*) \|/gm)) {
    rows.set(match[1] ?? '', { defaultCell: (match[2] ?? '').trim(), rule: (match[3] ?? '').trim() });
  }
  return rows;
}

describe('docs/tools.md', () => {
  it('carries the tool table generated from the registry (run `npm run docs:tools` when this fails)', () => {
    expect(toolTableIn(toolsDoc)).toBe(generatedToolTable());
  });

  it('has a row for every tool of the registry', () => {
    for (const tool of createRegistry('default').list()) expect(toolsDoc).toContain(`| \`${tool.name}\` |`);
  });
});

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` generates from src/config.ts (run it when this fails)', () => {
    expect(configurationDoc).toBe(configurationMarkdown());
  });

  it('has one row per variable config.ts reads, and no other', () => {
    expect([...configurationRows(configurationDoc).keys()].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it('shows each default the bot really takes when the variable is unset', () => {
    const rows = configurationRows(configurationDoc);
    const unset = loadConfig({});
    expect(rows.get('PORT')?.defaultCell).toBe(`\`${unset.slack.port}\``);
    expect(rows.get('APPROVAL_TTL_SECONDS')?.defaultCell).toBe(`\`${unset.approvals.ttlSeconds}\``);
    expect(rows.get('WATCH_INTERVAL_SECONDS')?.defaultCell).toBe(`\`${unset.watch.intervalSeconds}\``);
    expect(rows.get('DIGEST_CRON')?.defaultCell).toBe(`\`${unset.watch.digestCron}\``);
    expect(rows.get('DEFAULT_SITE')?.defaultCell).toBe(`\`${unset.defaultSite}\``);
    expect(rows.get('GATEWAY_VERIFY_TLS')?.defaultCell).toBe('`true`');
  });

  it('words each rule as the bot refuses a bad value', () => {
    const rows = configurationRows(configurationDoc);
    expect(() => loadConfig({ PORT: 'x' })).toThrow(rows.get('PORT')?.rule ?? 'no rule');
    expect(() => loadConfig({ ALERT_CHANNEL: '#ops' })).toThrow(rows.get('ALERT_CHANNEL')?.rule ?? 'no rule');
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(rows.get('LOG_LEVEL')?.rule ?? 'no rule');
  });

  it.each(ENV_VARIABLES)('lists %s in .env.example too', (name) => {
    expect(envExample).toMatch(new RegExp(`^${name}=`, 'm'));
  });
});
