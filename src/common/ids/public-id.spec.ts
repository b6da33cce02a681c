import fc from 'fast-check';
import { ID_PREFIX, IdKind, mintId, parseId } from './public-id';

const kinds = Object.keys(ID_PREFIX) as IdKind[];

describe('public ids', () => {
  it.each(kinds)('mints %s ids with their prefix that parse back', (kind) => {
    const id = mintId(kind);
    expect(id.startsWith(ID_PREFIX[kind])).toBe(true);
    expect(parseId(kind, id)).toBe(id);
  });

  it('carries at least 128 random bits (no collisions in 20k ids, 22 base62 chars)', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => mintId('meeting')));
    expect(ids.size).toBe(20_000);
    expect([...ids][0].length - ID_PREFIX.meeting.length).toBe(22);
    // Each character uniform over 62 symbols: 22 of them carry more than 128 bits.
    expect(22 * Math.log2(62)).toBeGreaterThan(128);
  });

  it('draws every character uniformly from base62, in every position', () => {
    const bodies = Array.from({ length: 31_000 }, () => mintId('meeting').slice(ID_PREFIX.meeting.length));
    for (const position of [0, 11, 21]) {
      const counts = new Map<string, number>();
      for (const body of bodies) counts.set(body[position], (counts.get(body[position]) ?? 0) + 1);
      expect(counts.size).toBe(62);
      // 500 expected per symbol; a chi-square over 61 degrees of freedom stays far below 130.
      const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - 500) ** 2 / 500, 0);
      expect(chiSquare).toBeLessThan(130);
    }
  });

  it('rejects an id of another collection', () => {
    expect(parseId('meeting', mintId('call'))).toBeNull();
    expect(parseId('call', mintId('meeting'))).toBeNull();
    expect(parseId('emailConversation', mintId('emailMessage'))).toBeNull();
  });

  it('rejects malformed ids', () => {
    const good = mintId('meeting');
    for (const bad of ['', 'mtg_', `${good}x`, good.slice(0, -1), `${good.slice(0, -1)}-`, 'MTG_' + good.slice(4), 42, null]) {
      expect(parseId('meeting', bad)).toBeNull();
    }
  });

  it('never accepts arbitrary strings that are not exactly prefix + 22 base62 chars', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const parsed = parseId('meeting', s);
        return parsed === null || /^mtg_[0-9A-Za-z]{22}$/.test(s);
      }),
    );
  });
});
