import SwaggerParser from '@apidevtools/swagger-parser';
import { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';

type Schema = Record<string, unknown>;
interface HeaderDoc {
  required?: boolean;
  schema: Schema;
}
interface ResponseDoc {
  headers?: Record<string, HeaderDoc>;
  content?: Record<string, { schema: Schema }>;
}
interface OperationDoc {
  responses: Record<string, ResponseDoc>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, OperationDoc>>;
  components: { responses?: Record<string, ResponseDoc> };
}

/** An answer as a client sees it. */
export interface ObservedResponse {
  status: number;
  body: unknown;
  /** Lower-case names, as Node gives them; omitted when only the body is to be checked. */
  headers?: Record<string, unknown>;
}

const INSTANT = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}Z$/;

/** Headers any HTTP server adds that the document has no reason to declare. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'transfer-encoding']);

/**
 * Objects admit no property the document does not declare, so a response that drifts from the
 * document in any direction fails. Nothing else is added: `null` is valid only where the 3.1
 * document itself says so (a `"null"` type, an enum listing null, an `anyOf` with a null type).
 */
function closed(schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map(closed) as unknown as Schema;
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === 'enum' || k === 'const' ? v : closed(v as Schema)]),
  );
  if (schema.properties && schema.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/**
 * Checks real answers against the app's own `/openapi.json`, read as OpenAPI 3.1 exactly: JSON
 * Schema 2020-12 (Ajv's 2020 dialect, strict, formats checked), with the OAS vocabulary's few
 * extra keywords known. The status must be documented, the body valid against its schema, every
 * header the API set declared on that response, every required one present, each valid.
 */
export class OpenApiResponses {
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly ajv: Ajv2020;

  private constructor(private readonly document: Document) {
    this.ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats(this.ajv);
    // Every instant the API answers is RFC 3339 in UTC with exactly six fractional digits: stricter
    // than the format alone, so every date-time field of every answer checked is held to it.
    this.ajv.addFormat('date-time', (value: string) => INSTANT.test(value) && !Number.isNaN(Date.parse(value)));
    for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) this.ajv.addKeyword({ keyword });
  }

  static async load(http: ReturnType<typeof request>): Promise<OpenApiResponses> {
    const { body } = await http.get('/openapi.json').expect(200);
    return OpenApiResponses.of(body);
  }

  private static readonly loaded = new Map<string, Promise<OpenApiResponses>>();

  /** One validator per distinct document (apps of one run serve the same one). */
  static of(document: unknown): Promise<OpenApiResponses> {
    const key = JSON.stringify(document);
    let loaded = OpenApiResponses.loaded.get(key);
    if (!loaded) {
      loaded = SwaggerParser.dereference(structuredClone(document) as never).then((d) => new OpenApiResponses(d as unknown as Document));
      OpenApiResponses.loaded.set(key, loaded);
    }
    return loaded;
  }

  /**
   * The documented path template `path` is routed to, if any (`/v1/meetings/{meeting_id}` for
   * `/v1/meetings/mtg_…`), matched as the router matches: on the raw path, case-sensitive, with
   * no trailing-slash alias.
   */
  templateOf(path: string): string | undefined {
    return Object.keys(this.document.paths).find((template) =>
      new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{[^/]+?\\\}/g, '[^/]+')}$`).test(path),
    );
  }

  /** The validation errors of `res` against `<method> <template>`'s documented response of its status; [] when valid. */
  errors(template: string, res: ObservedResponse, method = 'get'): string[] {
    const operation = this.document.paths[template]?.[method];
    if (this.document.paths[template] && !operation) {
      const component = template === '/oauth/token' ? 'TokenMethodNotAllowed' : 'MethodNotAllowed';
      return this.check(`${method} ${template} 405`, this.document.components.responses?.[component], res, 405);
    }
    return this.check(`${method} ${template} ${res.status}`, operation?.responses[String(res.status)], res);
  }

  /**
   * An answer for a path the document does not have: `404 RESOURCE_NOT_FOUND` in the error
   * envelope, with its request id (and, under `/v1` and the token path, the no-store headers).
   */
  unknownPathErrors(path: string, res: ObservedResponse): string[] {
    const envelope = this.document.paths['/v1/context'].get.responses['401'].content!['application/json'].schema;
    const noStore = /^\/v1(\/|$)/.test(path); // the surface the service answers with no-store (the token path itself is documented)
    const headers: Record<string, HeaderDoc> = {
      'X-Request-Id': { required: true, schema: { type: 'string', pattern: '^req_[0-9A-Za-z]+$' } },
      'X-Content-Type-Options': { required: true, schema: { const: 'nosniff' } },
      'Cache-Control': { required: noStore, schema: { const: 'no-store' } },
      Pragma: { required: noStore, schema: { const: 'no-cache' } },
      Vary: { required: false, schema: { type: 'string' } },
    };
    const notFound = { headers, content: { 'application/json': { schema: envelope } } };
    const problems = this.check(`unknown path ${path}`, notFound, res, 404);
    const code = (res.body as { error?: { code?: string } } | undefined)?.error?.code;
    if (res.body !== undefined && code !== 'RESOURCE_NOT_FOUND') problems.push(`unknown path ${path}: code ${code}`);
    return problems;
  }

  private check(key: string, response: ResponseDoc | undefined, res: ObservedResponse, expectedStatus = res.status): string[] {
    if (!response || res.status !== expectedStatus) return [`undocumented answer: ${key} (got ${res.status})`];
    const problems: string[] = [];
    // The media type the answer says it is must be one the response documents, or in a range it
    // documents (`text/*`, `*/*`: the most specific key applies, as OpenAPI says); its schema checks the body.
    const sent = res.headers?.['content-type'];
    const type = sent === undefined ? undefined : String(sent).split(';')[0].trim().toLowerCase();
    const documented = Object.keys(response.content ?? {});
    const matched = type === undefined ? undefined : [type, `${type.split('/')[0]}/*`, '*/*'].find((k) => documented.includes(k));
    if (type !== undefined && documented.length > 0 && matched === undefined) {
      problems.push(`${key}: Content-Type ${type} is not documented (${documented.join(', ')})`);
    }
    const ndjson = response.content?.['application/x-ndjson']?.schema;
    const schema = response.content?.[matched ?? 'application/json']?.schema;
    if (ndjson) {
      // One JSON value a line, each valid against the documented line schema.
      const lines =
        typeof res.body === 'string'
          ? res.body.split('\n').filter((l) => l.length)
          : res.body === undefined
            ? []
            : [JSON.stringify(res.body)];
      const validate = this.compiled(`${key} line`, ndjson);
      for (const line of lines) {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          problems.push(`${key}: a line is not JSON: ${line.slice(0, 80)}`);
          continue;
        }
        if (!validate(value)) problems.push(...describe(`${key} line`, validate));
      }
    } else if (res.status === 204) {
      // No content: nothing to validate, and nothing may be sent.
      if (type !== undefined || (typeof res.body === 'string' ? res.body.length > 0 : Object.keys(res.body ?? {}).length > 0)) {
        problems.push(`${key}: a 204 answer carries a body`);
      }
    } else if (!schema) problems.push(`no documented schema for ${key}`);
    else if (res.body !== undefined) {
      const validate = this.compiled(`${key} ${type ?? 'application/json'} body`, schema);
      if (!validate(res.body)) problems.push(...describe(key, validate));
    }
    if (res.headers) problems.push(...this.headerErrors(key, response.headers ?? {}, res.headers));
    return problems;
  }

  private headerErrors(key: string, declared: Record<string, HeaderDoc>, sent: Record<string, unknown>): string[] {
    const problems: string[] = [];
    const byName = new Map(Object.entries(declared).map(([name, header]) => [name.toLowerCase(), { name, header }]));
    for (const [name, value] of Object.entries(sent)) {
      if (TRANSPORT_HEADERS.has(name)) continue;
      const doc = byName.get(name);
      if (!doc) {
        problems.push(`${key}: header ${name} is sent but not declared`);
        continue;
      }
      const validate = this.compiled(`${key} header ${name}`, doc.header.schema);
      const typed = doc.header.schema.type === 'integer' && /^\d+$/.test(String(value)) ? Number(value) : value;
      if (!validate(typed)) problems.push(...describe(`${key} header ${name}=${String(value)}`, validate));
    }
    for (const [lower, { name, header }] of byName) {
      if (header.required && !(lower in sent)) problems.push(`${key}: required header ${name} is missing`);
    }
    return problems;
  }

  private compiled(key: string, schema: Schema): ValidateFunction {
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(closed(schema));
      this.cache.set(key, validate);
    }
    return validate;
  }
}

function describe(key: string, validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}
