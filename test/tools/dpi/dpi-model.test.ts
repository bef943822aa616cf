import { describe, expect, it } from 'vitest';
import bundled from '../../../src/data/dpi-catalogue.json' with { type: 'json' };
import {
  applicationKey,
  BUNDLED_NAMES,
  catalogueKey,
  categoriesOf,
  DpiNames,
  shares,
} from '../../../src/tools/dpi/dpi-model.js';
import { fixture } from '../../helpers/fixtures.js';

describe('shares', () => {
  it('rounds to two decimals and still adds up to exactly 100', () => {
    const percent = shares([1, 1, 1]);

    expect(percent).toEqual([33.34, 33.33, 33.33]);
    expect(Math.round(percent.reduce((a, b) => a + b, 0) * 100)).toBe(10_000);
  });

  it('gives every row zero when there is no traffic', () => {
    expect(shares([0, 0])).toEqual([0, 0]);
  });
});

describe('names', () => {
  it('names known ids from the bundled table and marks unknown ones', () => {
    expect(BUNDLED_NAMES.application(5, 1)).toBe('SMTP');
    expect(BUNDLED_NAMES.category(4)).toBe('Media Streaming');
    expect(BUNDLED_NAMES.application(4, 9999)).toBe('Unknown application 4:9999');
    expect(BUNDLED_NAMES.category(99)).toBe('Unknown category 99');
    // Newer builds may send names in place of ids.
    expect(BUNDLED_NAMES.application(4, 'Plex')).toBe('Plex');
  });
});

describe('categoriesOf', () => {
  it('sums by_app rows per category when the controller sent no by_cat rows', () => {
    const categories = categoriesOf(
      [],
      [
        { cat: 4, app: 132, rx_bytes: 300, tx_bytes: 0 },
        { cat: 4, app: 112, rx_bytes: 100, tx_bytes: 0 },
        { cat: 5, app: 1, rx_bytes: 50, tx_bytes: 50 },
      ],
      BUNDLED_NAMES,
    );

    expect(categories).toEqual([
      { category: 'Media Streaming', total_bytes: 400, application_count: 2, percentage: 80 },
      { category: 'Email Messaging', total_bytes: 100, application_count: 1, percentage: 20 },
    ]);
  });
});

describe('application ids against the captured catalogue (unpoller, usg-dpi 1.442.0)', () => {
  const captured = fixture<{ categories: Record<string, string>; applications: Record<string, string> }>(
    'classic/dpi-catalogue.unpoller.json',
  );
  const toMap = (table: Record<string, string>) =>
    new Map(Object.entries(table).map(([id, name]): [number, string] => [Number(id), name]));
  const names = new DpiNames(toMap(captured.categories), toMap(captured.applications));

  it.each([
    [5, 1, 'SMTP', 'MSN'],
    [4, 132, 'Netflix', undefined],
    [24, 3, 'Facebook', 'AIM/ICQ/iIM'],
    [14, 9, 'Microsoft Windows Update', 'Google Talk'],
    [0, 41, 'WhatsApp', 'WhatsApp'],
  ])('names stat row cat %i app %i %s (the low part alone would be %s)', (cat, app, name, lowPartOnly) => {
    expect(names.application(cat, app)).toBe(name);
    expect(captured.applications[String(app)]).toBe(lowPartOnly);
  });

  it('takes an app id that already carries its category as it is', () => {
    expect(names.application(4, 262276)).toBe('Netflix');
    expect(applicationKey(4, 262276)).toBe(262276);
  });

  it('keys Integration catalogue entries by the compound id, combining a separate categoryId', () => {
    expect(catalogueKey({ id: 262276 })).toBe(262276);
    expect(catalogueKey({ id: 262276, categoryId: 4 })).toBe(262276);
    expect(catalogueKey({ id: 132, categoryId: 4 })).toBe(262276);
    expect(catalogueKey({ id: 41, categoryId: 0 })).toBe(41);
  });

  it('ships the captured catalogue as its bundled names', () => {
    expect(bundled.applications).toEqual(captured.applications);
    expect(bundled.categories).toEqual(captured.categories);
    expect(BUNDLED_NAMES.application(24, 158)).toBe('Instagram');
  });
});
