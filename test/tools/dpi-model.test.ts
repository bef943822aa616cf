import { describe, expect, it } from 'vitest';
import { BUNDLED_NAMES, categoriesOf, shares } from '../../src/tools/dpi-model.js';

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
