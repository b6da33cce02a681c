import fc from 'fast-check';
import { parseBenchOptions, shareOf } from './options';

describe('bench options', () => {
  it('defaults to the volume and load the issue asks for', () => {
    expect(parseBenchOptions([])).toMatchObject({
      meetings: 200_000,
      calls: 200_000,
      emails: 50_000,
      chats: 50_000,
      emailMessages: 10,
      chatMessages: 20,
      companies: 3,
      connections: 50,
      deepOffset: 50_000,
      scaleFrom: 10_000,
      scaleTo: 1_000_000,
      triggerMeetings: 1_000_000,
      triggerRounds: 5,
      docs: 'docs/BENCHMARKS.md',
    });
  });

  it('reads flags, with _ as a digit separator', () => {
    expect(parseBenchOptions(['--meetings', '1_000_000', '--scale-to', '0', '--keep', '--docs', ''])).toMatchObject({
      meetings: 1_000_000,
      scaleTo: 0,
      keep: true,
      docs: '',
    });
  });

  it.each([
    [['--meetings', 'many']],
    [['--connections', '0']],
    [['--duration', '1.5']],
    [['--scale-from', '5000', '--scale-to', '5000']],
    [['--trigger-rounds', '0']],
  ])('refuses %j', (argv) => {
    expect(() => parseBenchOptions(argv)).toThrow(/must/);
  });

  it('splits every total across the companies without losing or inventing a record, half to the first', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 9 }), (total, companies) => {
        const shares = Array.from({ length: companies }, (_, i) => shareOf(total, i, companies));
        expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
        expect(shares.every((n) => n >= 0)).toBe(true);
        expect(shares[0]).toBe(companies === 1 ? total : Math.ceil(total / 2));
      }),
    );
  });
});
