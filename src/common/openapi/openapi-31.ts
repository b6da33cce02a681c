import type { OpenAPIObject } from '@nestjs/swagger';

type Json = Record<string, unknown>;

/**
 * @nestjs/swagger writes OpenAPI 3.0: a nullable value is `nullable: true` beside its type, and a
 * nullable object `{nullable: true, allOf: [$ref]}`, which strict 3.0 readers and every 3.1 tool
 * read as "never null", so generated types reject real answers. In 3.1 (JSON Schema 2020-12)
 * null is a type: `type: [T, "null"]`, enums list `null`, objects are `anyOf: [$ref, {type: null}]`.
 * This rewrites the document in place; nothing but `nullable` changes meaning.
 */
export function upgradeToOpenApi31(document: OpenAPIObject): void {
  (document as { openapi: string }).openapi = '3.1.0';
  rewrite(document.components ?? {});
  rewrite(document.paths);
}

function rewrite(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(rewrite);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Json;
  for (const value of Object.values(schema)) rewrite(value);
  if (!('nullable' in schema)) return;
  const nullable = schema.nullable === true;
  delete schema.nullable;
  if (!nullable) return;
  const { allOf, type, enum: values } = schema as { allOf?: Json[]; type?: unknown; enum?: unknown[] };
  if (allOf?.length === 1 && typeof allOf[0].$ref === 'string') {
    delete schema.allOf;
    delete schema.type;
    schema.anyOf = [allOf[0], { type: 'null' }];
    return;
  }
  if (typeof type !== 'string') throw new Error(`cannot express a nullable schema without a type: ${JSON.stringify(schema)}`);
  schema.type = [type, 'null'];
  if (values) schema.enum = [...values, null];
}
