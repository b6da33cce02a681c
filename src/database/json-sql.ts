/**
 * SQL expressions that render compact JSON text (no spaces, keys in the order given), for the
 * statements whose answer PostgreSQL writes whole and the service passes through unparsed.
 * Every expression here yields JSON text and never SQL NULL (a NULL value is the text `null`),
 * so they nest inside one another without checks. (`json_build_object` keeps key order too,
 * but writes `"key" : value`: about a tenth more bytes on the wire.)
 */

/** Any SQL value (text, number, boolean, json) as JSON text. */
export const json = (value: string) => `coalesce(to_json(${value})::text, 'null')`;

/** A JSON object of `[key, JSON text expression]` pairs, in order. Keys are our literals, never input. */
export function jsonObject(fields: ReadonlyArray<readonly [string, string]>): string {
  if (fields.length > 49) throw new Error('concat() takes at most 100 arguments'); // PostgreSQL's FUNC_MAX_ARGS
  const parts = fields.map(([key, value], i) => {
    if (!/^[a-z_]+$/.test(key)) throw new Error(`not a field name: ${key}`);
    return `'${i ? ',' : ''}"${key}":', ${value}`;
  });
  return `concat('{', ${parts.join(', ')}, '}')`;
}

/** A JSON array of `item` (JSON text) over the rows of `from` (which may carry a WHERE), in `order`; `[]` when there are none. */
export const jsonArray = (item: string, order: string, from: string) =>
  `(SELECT concat('[', string_agg(${item}, ',' ORDER BY ${order}), ']') FROM ${from})`;
