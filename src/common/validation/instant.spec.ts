import fc from 'fast-check';
import { Instant } from './instant';

describe('Instant.parse', () => {
  it.each([
    ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000000Z'],
    ['2026-01-02T03:04:05.123456Z', '2026-01-02T03:04:05.123456Z'],
    ['2026-01-02T03:04:05.1234567-03:00', '2026-01-02T06:04:05.123456Z'],
    ['2026-01-02t00:30:00+01:00', '2026-01-01T23:30:00.000000Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(Instant.parse(text)?.iso).toBe(iso);
  });

  it.each([
    '2026-01-02',
    '2026-01-02T03:04:05',
    '2026-01-02 03:04:05Z',
    '2026-13-01T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-01-32T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+0300',
    '1735689600',
    'yesterday',
    '',
    '0001-01-01T00:00:00+01:00',
  ])('rejects %s', (text) => {
    expect(Instant.parse(text)).toBeNull();
  });

  it('agrees with Date for every millisecond instant (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true }),
        (date) => {
          const parsed = Instant.parse(date.toISOString());
          return (
            parsed !== null &&
            parsed.micros === BigInt(date.getTime()) * 1000n &&
            parsed.iso.slice(0, 23) === date.toISOString().slice(0, 23)
          );
        },
      ),
    );
  });
});
