import { JsonText, PART_CHARS, SerializedBody } from './json-text';

const item = (i: number, size: number) => new JsonText(JSON.stringify({ id: `mtg_${i}`, pad: 'x'.repeat(size) }), `mtg_${i}`);

describe('SerializedBody', () => {
  it.each([0, 1, 3, 100, 400])('splices %i items into a body whose parts join to the JSON and stay under the part size', (n) => {
    const items = Array.from({ length: n }, (_, i) => item(i, 1800));
    const body = SerializedBody.of('{"data":[', items, ',', '],"request_id":"req_x"}');
    expect(JSON.parse(body.parts.join(''))).toEqual({ data: items.map((i) => JSON.parse(i.text)), request_id: 'req_x' });
    for (const part of body.parts) expect(part.length).toBeLessThanOrEqual(PART_CHARS);
    expect(body.resourceIds).toEqual(items.map((i) => i.id));
    if (n === 100) expect(body.parts.length).toBeGreaterThan(1); // about 180 KB: never one string
  });

  it('keeps an item larger than a part whole, in a part of its own', () => {
    const big = item(0, PART_CHARS * 2);
    const body = SerializedBody.of('{"data":[', [item(1, 10), big, item(2, 10)], ',', ']}');
    expect(body.parts.some((p) => p.includes(big.text))).toBe(true);
    expect(JSON.parse(body.text).data).toHaveLength(3);
  });
});
