import { describe, expect, it } from 'vitest';
import { FilterSyntaxError, matchesFilter, parseFilter } from '../../src/simulator/integration-filter.js';

const record = {
  id: '385c64c2-1d8e-4a30-b391-9b34bec60595',
  name: "O'Brien's guest1",
  index: 3,
  enabled: true,
  tags: ['a', 'b'],
  empty: [],
  metadata: { origin: 'USER_DEFINED' },
  nothing: null,
};

const matches = (filter: string) => matchesFilter(parseFilter(filter), record);

describe('Integration filter parser', () => {
  // Deliberately alike: one expectation a filter expression; the expressions are the test data.
  it('evaluates property functions on strings, numbers, booleans and nested properties', () => {
    expect(matches("name.eq('O''Brien''s guest1')")).toBe(true);
    expect(matches("metadata.origin.eq('USER_DEFINED')")).toBe(true);
    expect(matches('index.gt(2)')).toBe(true);
    expect(matches('index.le(2)')).toBe(false);
    expect(matches('enabled.ne(true)')).toBe(false);
    expect(matches('id.eq(385c64c2-1d8e-4a30-b391-9b34bec60595)')).toBe(true);
    expect(matches('nothing.isNull()')).toBe(true);
    expect(matches('missing.isNotNull()')).toBe(false);
    expect(matches('index.in(1, 3, 5)')).toBe(true);
    expect(matches("name.notIn('x', 'y')")).toBe(true);
  });

  it('implements like with . for one character, * for any run and \\ escapes', () => {
    expect(matches("name.like('O*guest.')")).toBe(true);
    expect(matches("name.like('O*guest')")).toBe(false);
    expect(matches("name.like('O\\*')")).toBe(false);
  });

  it('evaluates set functions', () => {
    expect(matches("tags.contains('a')")).toBe(true);
    expect(matches("tags.containsAny(['z', 'b'])")).toBe(true);
    expect(matches("tags.containsAll('a', 'z')")).toBe(false);
    expect(matches("tags.containsExactly(['b', 'a'])")).toBe(true);
    expect(matches('empty.isEmpty()')).toBe(true);
  });

  it('combines with and, or and not', () => {
    expect(matches("and(enabled.eq(true), or(index.eq(1), name.like('O*')), not(tags.isEmpty()))")).toBe(
      true,
    );
    expect(matches('not(enabled.eq(true))')).toBe(false);
  });

  it.each([
    '',
    'name',
    "name.eq('x'",
    "name.eq('x') extra",
    "name.bogus('x')",
    'name.eq()',
    "name.eq('a', 'b')",
    'name.like(3)',
    "and(name.eq('x'),)",
    'name.eq(abc)',
    "name.eq('unterminated)",
  ])('rejects %j', (filter) => {
    expect(() => parseFilter(filter)).toThrow(FilterSyntaxError);
  });
});
