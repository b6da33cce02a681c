import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import request from 'supertest';

type Schema = Record<string, unknown>;

/**
 * OpenAPI 3.0 schema → JSON Schema, made strict: `nullable` becomes a null alternative, and
 * objects admit no property the document does not declare, so a response that drifts from
 * the document in any direction fails.
 */
function strict(schema: Schema): Schema {
  const { nullable, properties, items, allOf, ...rest } = schema as Schema & {
    nullable?: boolean;
    properties?: Record<string, Schema>;
    items?: Schema;
    allOf?: Schema[];
  };
  const out: Schema = { ...rest };
  if (properties) {
    out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, strict(v)]));
    out.additionalProperties = false;
  }
  if (items) out.items = strict(items);
  if (allOf) out.allOf = allOf.map(strict);
  return nullable ? { anyOf: [out, { type: 'null' }] } : out;
}

/** Checks real responses against the schemas the app's own `/openapi.json` declares for them. */
export class OpenApiResponses {
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

  private constructor(private readonly document: { paths: Record<string, Record<string, { responses: Record<string, Schema> }>> }) {}

  static async load(http: ReturnType<typeof request>): Promise<OpenApiResponses> {
    const { body } = await http.get('/openapi.json').expect(200);
    return new OpenApiResponses((await SwaggerParser.dereference(structuredClone(body))) as never);
  }

  /** The validation errors of `res` against `GET <template>`'s documented response of its status; [] when valid. */
  errors(template: string, res: request.Response, method = 'get'): string[] {
    const key = `${method} ${template} ${res.status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      const response = this.document.paths[template]?.[method]?.responses[String(res.status)] as
        { content?: Record<string, { schema: Schema }> } | undefined;
      const schema = response?.content?.['application/json']?.schema;
      if (!schema) return [`no documented schema for ${key}`];
      validate = this.ajv.compile(strict(schema));
      this.cache.set(key, validate);
    }
    return validate(res.body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
