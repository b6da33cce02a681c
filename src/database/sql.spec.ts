import { limitClause } from './sql';

describe('limitClause', () => {
  it('writes a page size into the statement', () => {
    expect(limitClause(1)).toBe('LIMIT 1');
    expect(limitClause(101)).toBe('LIMIT 101');
  });

  it.each([0, -1, 1.5, Number.NaN, 1001, Number.MAX_SAFE_INTEGER + 2])('refuses %p, so nothing but a page size reaches the SQL', (take) => {
    expect(() => limitClause(take)).toThrow('not a page size');
  });
});
