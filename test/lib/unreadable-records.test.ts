import { describe, expect, it } from 'vitest';
import {
  attachUnreadable,
  noteUnreadable,
  splitUnreadable,
  UNREADABLE_FIELD,
  unreadableLine,
  withUnreadableTally,
} from '../../src/lib/unreadable-records.js';

// Records a lenient parse leaves out are tallied per tool run and shown with the answer.

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the tally of unreadable records', () => {
  it('sums what the lists of one run left out, awaits and parallel reads included', async () => {
    const { value, unreadable } = await withUnreadableTally(async () => {
      noteUnreadable('classic /api/s/default/rest/networkconf', 7);
      await tick();
      await Promise.all([
        (async () => {
          await tick();
          noteUnreadable('classic /api/s/default/stat/sta', 2);
        })(),
        (async () => noteUnreadable('v2 /v2/api/site/default/firewall/zone', 1))(),
      ]);
      return 'answer';
    });
    expect(value).toBe('answer');
    expect(unreadable).toBe(10);
  });

  it('counts a list read twice in one run once', async () => {
    const { unreadable } = await withUnreadableTally(async () => {
      noteUnreadable('classic /api/s/default/rest/networkconf', 7);
      noteUnreadable('classic /api/s/default/rest/networkconf', 7);
      noteUnreadable('classic /api/s/default/rest/networkconf', 5);
    });
    expect(unreadable).toBe(7);
  });

  it('keeps concurrent runs apart, and ignores counts outside any run', async () => {
    noteUnreadable('outside', 4);
    const [a, b] = await Promise.all([
      withUnreadableTally(async () => {
        await tick();
        noteUnreadable('a', 3);
      }),
      withUnreadableTally(async () => {
        noteUnreadable('b', 1);
        await tick();
      }),
    ]);
    expect([a.unreadable, b.unreadable]).toEqual([3, 1]);
    const clean = await withUnreadableTally(async () => noteUnreadable('zero', 0));
    expect(clean.unreadable).toBe(0);
  });

  it('a run that throws leaves no count behind for the next', async () => {
    await expect(
      withUnreadableTally(async () => {
        noteUnreadable('x', 2);
        throw new Error('controller gone');
      }),
    ).rejects.toThrow('controller gone');
    expect((await withUnreadableTally(async () => undefined)).unreadable).toBe(0);
  });
});

describe('the count on a result', () => {
  const rows = [{ name: 'Lab' }, { name: 'IoT' }];

  it('leaves a result untouched when nothing was left out', () => {
    expect(attachUnreadable(rows, 0)).toBe(rows);
    expect(splitUnreadable(rows)).toEqual({ result: rows, unreadable: 0 });
  });

  it('puts a list under `result` and an object gains the field; split gives both back', () => {
    const list = attachUnreadable(rows, 7);
    expect(list).toEqual({ result: rows, [UNREADABLE_FIELD]: 7 });
    expect(splitUnreadable(list)).toEqual({ result: rows, unreadable: 7 });
    const object = attachUnreadable({ network: 'Lab', clients: 3 }, 1);
    expect(object).toEqual({ network: 'Lab', clients: 3, unreadable_records: 1 });
    expect(splitUnreadable(object)).toEqual({ result: { network: 'Lab', clients: 3 }, unreadable: 1 });
  });

  it('leaves text (a file export) as is, and does not trust a malformed count', () => {
    expect(attachUnreadable('graph {}', 3)).toBe('graph {}');
    const odd = { name: 'x', unreadable_records: 'seven' };
    expect(splitUnreadable(odd)).toEqual({ result: odd, unreadable: 0 });
  });

  it('words the line for one record and for many, with the rows shown', () => {
    expect(unreadableLine(1)).toBe('1 controller record the bot could not read was left out.');
    expect(unreadableLine(7, 2)).toBe('2 shown; 7 controller records the bot could not read were left out.');
  });
});
