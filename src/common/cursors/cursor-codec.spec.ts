import fc from 'fast-check';
import { ApiError } from '../errors/api-error';
import { CursorBinding, CursorCodec } from './cursor-codec';
import { keysetPage } from './keyset-page';

const codec = new CursorCodec('unit-test-cursor-secret-0123456789abcdef');
const binding: CursorBinding = {
  route: 'GET /v1/meetings',
  company: '1234567',
  filters: { owner_email: 'ana.souza@example.com.br', type: 'video' },
};
const position = ['2026-01-02T03:04:05.123456Z', 987654321];

function openCode(cursor: string, b: CursorBinding = binding): string | null {
  try {
    codec.open(cursor, b);
    return null;
  } catch (e) {
    return e instanceof ApiError ? e.code : 'unexpected';
  }
}

describe('CursorCodec', () => {
  it('opens what it sealed, for the same binding', () => {
    expect(codec.open(codec.seal(binding, position), binding)).toEqual(position);
  });

  it('has the cur_ form and is url-safe', () => {
    expect(codec.seal(binding, position)).toMatch(/^cur_[A-Za-z0-9_-]+$/);
  });

  it('binds the filters in any key order, ignoring undefined ones', () => {
    const cursor = codec.seal(binding, position);
    expect(
      codec.open(cursor, { ...binding, filters: { type: 'video', owner_email: 'ana.souza@example.com.br', audience: undefined } }),
    ).toEqual(position);
  });

  it.each([
    ['another route', { ...binding, route: 'GET /v1/calls' }],
    ['another company', { ...binding, company: '1234568' }],
    ['changed filters', { ...binding, filters: { ...binding.filters, type: 'audio' } }],
    ['an added filter', { ...binding, filters: { ...binding.filters, audience: 'external' } }],
    ['a removed filter', { ...binding, filters: { type: 'video' } }],
    ['another parent', { ...binding, parent: 'eml_other' }],
  ])('rejects the cursor under %s with INVALID_CURSOR', (_name, other) => {
    expect(openCode(codec.seal(binding, position), other as CursorBinding)).toBe('INVALID_CURSOR');
  });

  it('rejects a cursor sealed with another secret', () => {
    const foreign = new CursorCodec('another-secret-another-secret-another-secret');
    expect(openCode(foreign.seal(binding, position))).toBe('INVALID_CURSOR');
  });

  it('rejects garbage', () => {
    for (const bad of ['', 'cur_', 'cur_!!!', 'abc', 'cur_AAAA', `cur_${'A'.repeat(80)}`]) {
      expect(openCode(bad)).toBe('INVALID_CURSOR');
    }
  });

  it('rejects every single-character edit of a cursor (property)', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.integer()), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.constantFrom(...alphabet.split('')),
        (pos, at, replacement) => {
          const cursor = codec.seal(binding, pos);
          const i = 4 + (at % (cursor.length - 4));
          fc.pre(cursor[i] !== replacement);
          const edited = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
          return openCode(edited) === 'INVALID_CURSOR';
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('rejects every single-bit flip of the sealed bytes', () => {
    const cursor = codec.seal(binding, position);
    const bytes = Buffer.from(cursor.slice(4), 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const copy = Buffer.from(bytes);
        copy[i] ^= 1 << bit;
        expect(openCode(`cur_${copy.toString('base64url')}`)).toBe('INVALID_CURSOR');
      }
    }
  });

  it('reveals no internal id or filter value in its content (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 10_000n, max: 2n ** 62n }), fc.emailAddress(), (id, email) => {
        const b = { ...binding, filters: { owner_email: email } };
        const cursor = codec.seal(b, ['2026-01-01T00:00:00Z', id.toString()]);
        const decoded = Buffer.from(cursor.slice(4), 'base64url');
        const asText = decoded.toString('latin1') + cursor;
        return !asText.includes(id.toString()) && !asText.includes(email) && !asText.includes('2026-01-01');
      }),
      { numRuns: 300 },
    );
  });
});

describe('keysetPage', () => {
  const rows = [1, 2, 3, 4].map((n) => ({ id: n }));
  const present = (r: { id: number }[]) => r.map((x) => x.id);

  it('says has_more and seals the last returned row when limit+1 rows came back', () => {
    const page = keysetPage(rows, 3, (r) => [r.id], present, codec, binding);
    expect(page.data).toEqual([1, 2, 3]);
    expect(page.pagination.has_more).toBe(true);
    expect(page.pagination.limit).toBe(3);
    expect(codec.open(page.pagination.next_cursor!, binding)).toEqual([3]);
  });

  it('ends the traversal with a null cursor', () => {
    const page = keysetPage(rows, 4, (r) => [r.id], present, codec, binding);
    expect(page.data).toEqual([1, 2, 3, 4]);
    expect(page.pagination).toEqual({ limit: 4, has_more: false, next_cursor: null });
  });
});
