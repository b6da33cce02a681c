import { FETCH_SIZES, limitClause, pageOf } from './sql';

describe('limitClause', () => {
  it('writes a page size into the statement, rounded up to one of a few fetch sizes', () => {
    expect(limitClause(1)).toBe('LIMIT 2');
    expect(limitClause(2)).toBe('LIMIT 2');
    expect(limitClause(7)).toBe('LIMIT 11');
    expect(limitClause(51)).toBe('LIMIT 51');
    expect(limitClause(101)).toBe('LIMIT 101');
  });

  it('gives every page size of the API (limit 1 to 100, plus the look-ahead row) one of six texts', () => {
    const texts = new Set(Array.from({ length: 100 }, (_, i) => limitClause(i + 2)));
    expect(texts.size).toBe(FETCH_SIZES.length);
    expect([...texts].every((t) => FETCH_SIZES.some((s) => t === `LIMIT ${s}`))).toBe(true);
  });

  it('keeps the first take rows of what was fetched', () => {
    expect(pageOf([1, 2, 3, 4, 5, 6], 4)).toEqual([1, 2, 3, 4]);
    expect(pageOf([1, 2], 4)).toEqual([1, 2]);
  });

  it.each([0, -1, 1.5, Number.NaN, 102, 1001, Number.MAX_SAFE_INTEGER + 2])(
    'refuses %p, so nothing but a page size reaches the SQL',
    (take) => {
      expect(() => limitClause(take)).toThrow('not a page size');
    },
  );
});
