import fc from 'fast-check';
import { JsonText } from '../http/json-text';
import { CursorBinding, CursorCodec } from './cursor-codec';
import { byteLength, keysetPage } from './keyset-page';

const codec = new CursorCodec('unit-test-cursor-secret-0123456789abcdef');
const binding: CursorBinding = { route: 'GET /v1/meetings', company: '1', filters: {} };
type Row = { id: string; size: number };
const page = (rows: Row[], limit: number, maxBytes?: number) =>
  keysetPage(
    rows,
    limit,
    (r) => ['0', r.id],
    (served) => served.map((r) => new JsonText(JSON.stringify({ id: r.id, pad: 'x'.repeat(r.size) }), r.id)),
    codec,
    binding,
    maxBytes,
  );

describe('keysetPage with a byte budget', () => {
  it('stops before the item that would pass the budget, continues after the last item served', () => {
    const rows = [1, 2, 3, 4].map((n) => ({ id: String(n), size: 100 }));
    const each = byteLength(page(rows.slice(0, 1), 10).data[0]) + 1;
    const cut = page(rows, 10, 2 * each + 5);
    expect(cut.data.map((d) => d.id)).toEqual(['1', '2']);
    expect(cut.pagination).toMatchObject({ limit: 10, has_more: true });
    expect(codec.open(cut.pagination.next_cursor!, binding)).toEqual(['0', '2']);
  });

  it('always serves the first item, however large', () => {
    const cut = page([{ id: '1', size: 5000 }, { id: '2', size: 10 }], 10, 1024);
    expect(cut.data.map((d) => d.id)).toEqual(['1']);
    expect(cut.pagination.has_more).toBe(true);
  });

  it('without a budget, or within it, is the keyset page it always was', () => {
    const rows = [1, 2, 3].map((n) => ({ id: String(n), size: 10 }));
    expect(page(rows, 2).pagination.has_more).toBe(true);
    expect(page(rows, 3, 1_000_000)).toEqual(page(rows, 3));
    expect(page(rows, 3).pagination).toEqual({ limit: 3, has_more: false, next_cursor: null });
  });

  it('walking with any budget yields every row once, in order (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 0, maxLength: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1024, max: 20_000 }),
        (sizes, limit, budget) => {
          const rows = sizes.map((size, i) => ({ id: String(i + 1), size }));
          const seen: string[] = [];
          let after = 0;
          for (let pages = 0; pages <= rows.length + 1; pages++) {
            const result = page(rows.slice(after, after + limit + 1), limit, budget);
            seen.push(...result.data.map((d) => d.id));
            if (result.data.length === 0 || !result.pagination.has_more) break;
            after = Number(codec.open(result.pagination.next_cursor!, binding)[1]);
          }
          expect(seen).toEqual(rows.map((r) => r.id));
        },
      ),
    );
  });
});
