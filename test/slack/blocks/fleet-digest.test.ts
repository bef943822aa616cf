import { describe, expect, it } from 'vitest';
import {
  fleetDigestDay,
  fleetDigestMessage,
  fleetDigestTitle,
  fleetLineCounts,
} from '../../../src/slack/blocks/fleet-digest.js';
import { messageProblems, viewProblems } from '../../../src/slack/blocks/limits.js';
import type { FleetDigest, FleetDigestLine } from '../../../src/watch/index.js';

const TO = Date.parse('2026-12-07T07:00:00Z');

const line = (n: number, part: Partial<FleetDigestLine> = {}): FleetDigestLine => ({
  console: `console-${n}`,
  site: 'default',
  changes: 0,
  incidents: 0,
  open: 0,
  drift: 0,
  offline: 0,
  pending: 0,
  ...part,
});

function digestOf(lines: FleetDigestLine[], quiet: number): FleetDigest {
  return {
    from: TO - 86_400_000,
    to: TO,
    timeZone: 'Europe/Berlin',
    consoles: 50,
    sites: lines.length + quiet,
    changes: 4,
    incidents: 3,
    open: 1,
    drift: 2,
    offline: 5,
    pending: 1,
    overdueReviews: 1,
    unreadable: lines.filter((each) => each.unreadable !== undefined).length,
    lines,
    quiet,
  };
}

describe('the fleet digest message', () => {
  const digest = digestOf(
    [
      line(7, { unreadable: 'no answer within 8000 ms' }),
      line(3, { incidents: 2, open: 1, offline: 1 }),
      line(1, { changes: 3, drift: 2, pending: 1 }),
    ],
    47,
  );
  const message = fleetDigestMessage(digest);
  const text = JSON.stringify(message.blocks);

  it('heads with the day in TZ and the fleet’s counts', () => {
    expect(fleetDigestDay(digest)).toBe('Mon 7 Dec 2026');
    expect(message.text).toBe(
      'Fleet digest for Mon 7 Dec 2026: 50 consoles · 50 sites · 4 changes · 3 incidents (1 open) · 2 drift · 5 offline now · 1 pending approval · 1 break-glass review overdue · 1 site unreadable',
    );
    expect(text).toContain('Fleet digest: Mon 7 Dec 2026');
  });

  it('lists each site with anything in one line, in the given order, and counts the quiet ones', () => {
    const body = message.blocks
      .filter((block) => block.type === 'section')
      .map((block) => (block.type === 'section' ? block.text?.text : ''))
      .join('\n');
    expect(body.split('\n')).toEqual([
      ':warning: *console-7 · default*: could not be read: no answer within 8000 ms',
      ':red_circle: *console-3 · default*: 2 incidents (1 open), 1 offline',
      '*console-1 · default*: 3 changes, 2 drift, 1 pending',
    ]);
    expect(text).toContain(
      '47 quiet sites: no changes, incidents, drift, devices offline or pending approvals',
    );
    // No chart and no buttons: one message of text.
    expect(message.blocks.map((block) => block.type)).toEqual(['header', 'context', 'section', 'context']);
    expect(messageProblems(message)).toEqual([]);
  });

  it('keeps within Slack’s limits at 50 consoles of two busy sites each, the rest counted', () => {
    const lines = Array.from({ length: 100 }, (_, n) =>
      line(n, {
        site: `site-with-a-long-name-${n}`,
        changes: 12,
        incidents: 9,
        open: 3,
        drift: 4,
        offline: 7,
        pending: 2,
      }),
    );
    const busy = fleetDigestMessage(digestOf(lines, 0));
    expect(messageProblems(busy)).toEqual([]);
    expect(viewProblems({ type: 'home', blocks: busy.blocks })).toEqual([]);
    const shown = JSON.stringify(busy.blocks);
    expect(shown).toContain('console-39 · site-with-a-long-name-39');
    expect(shown).not.toContain('console-40 ·');
    expect(shown).toContain('… and 60 more sites not shown: `get_digest` lists every one');
    expect(shown).toContain('no quiet sites');
  });

  it('words a line tersely, leaving zero counts out', () => {
    expect(fleetLineCounts(line(1, { incidents: 2, open: 1, offline: 1 }))).toBe(
      '2 incidents (1 open), 1 offline',
    );
    expect(fleetLineCounts(line(1, { incidents: 1 }))).toBe('1 incident');
    expect(fleetLineCounts(line(1, { changes: 1, drift: 2 }))).toBe('1 change, 2 drift');
    expect(fleetLineCounts(line(1, { pending: 1 }))).toBe('1 pending');
    expect(fleetLineCounts(line(1, { changes: 4, unreadable: 'no answer within 2000 ms' }))).toBe(
      'could not be read: no answer within 2000 ms',
    );
  });

  it('says in its header what a bound channel’s digest covers, the whole fleet’s saying nothing more', () => {
    const header = (covers?: string) => {
      const message = fleetDigestMessage({ ...digestOf([], 3), ...(covers ? { covers } : {}) });
      const [first] = message.blocks;
      return { header: first?.type === 'header' ? first.text.text : '', text: message.text };
    };
    expect(header('customer=acme').header).toBe('Fleet digest · customer=acme: Mon 7 Dec 2026');
    expect(header('customer=acme').text).toMatch(
      /^Fleet digest · customer=acme for Mon 7 Dec 2026: 50 consoles/,
    );
    expect(header('berlin · default').header).toBe('Fleet digest · berlin · default: Mon 7 Dec 2026');
    expect(header().header).toBe('Fleet digest: Mon 7 Dec 2026');
    expect(fleetDigestTitle({})).toBe('Fleet digest');
    // A label value is the file's own text: escaped where Slack reads mrkdwn.
    expect(header('team=<!channel>').text).toContain('team=&lt;!channel&gt;');
  });

  it('escapes names from CONSOLES_FILE and the controller as mrkdwn', () => {
    const odd = fleetDigestMessage(digestOf([line(1, { console: '<!channel>', site: '*x*', drift: 1 })], 0));
    const shown = JSON.stringify(odd.blocks);
    expect(shown).not.toContain('<!channel>');
    expect(shown).toContain('&lt;!channel&gt;');
  });
});
