import { describe, expect, it } from 'vitest';
import { CONSOLES_SHOWN, type ConsoleRow, consolesBlocks } from '../../../src/slack/blocks/home-consoles.js';
import { viewProblems } from '../../../src/slack/blocks/limits.js';
import { lastChanges } from '../../../src/slack/home/console-rows.js';
import { sampleRequest } from '../../store/contract.js';

const up = {
  apiType: 'local' as const,
  reachable: true,
  checkedAt: '2026-01-01T00:00:00Z',
  version: '10.1.85',
};

describe('the Consoles section of App Home', () => {
  it('shows up to CONSOLES_SHOWN consoles, not reachable first, and names the rest', () => {
    const rows: ConsoleRow[] = Array.from({ length: 40 }, (_, i) => ({
      name: `site-${i}`,
      via: 'local',
      status: i === 30 ? { ...up, reachable: false, error: 'connection refused' } : up,
    }));
    const blocks = consolesBlocks(rows);
    expect(blocks).toHaveLength(1 + CONSOLES_SHOWN + 1);
    const text = JSON.stringify(blocks);
    expect(text).toContain('Consoles (40) · 1 not reachable');
    expect(JSON.stringify(blocks[1])).toContain('*site-30*');
    expect(JSON.stringify(blocks[1])).toContain(':warning: connection refused');
    expect(text).toContain(`And ${40 - CONSOLES_SHOWN} more: site-11, site-12`);
    expect(viewProblems({ type: 'home', blocks })).toEqual([]);
  });

  it('says checking for a console that did not answer in time, and not watched without a watcher', () => {
    const text = JSON.stringify(consolesBlocks([{ name: 'oslo', via: 'connector' }]));
    expect(text).toContain('no answer yet (checking)');
    expect(text).toContain('through the cloud connector');
    expect(text).toContain('not watched');
    expect(text).toContain('version not known yet');
  });

  it('takes each console’s newest finished change from a list newest first', () => {
    const on = (id: string, console?: string) => {
      const request = sampleRequest({ id });
      return console === undefined ? request : { ...request, args: { ...request.args, console } };
    };
    const newer = on('cr_new', 'berlin');
    const older = on('cr_old', 'berlin');
    const munich = on('cr_mu', 'munich');
    const single = on('cr_one');
    const last = lastChanges([newer, munich, older, single]);
    expect([...last].map(([console, request]) => [console, request.id])).toEqual([
      ['berlin', 'cr_new'],
      ['munich', 'cr_mu'],
    ]);
  });
});
