import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createTestApp } from '../support/test-app';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');
const GENERATOR = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
const TSC = require.resolve('typescript/bin/tsc');

type Schema = { $ref?: string; type?: string; enum?: unknown[] };
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { properties?: object }> } };

/** A value of a parameter's schema, as a TypeScript literal. */
function literal(schema: Schema | undefined): string {
  if (schema?.enum?.length) return JSON.stringify(schema.enum[0]);
  if (schema?.type === 'integer' || schema?.type === 'number') return '1';
  if (schema?.type === 'boolean') return 'true';
  return "'x'";
}

/**
 * A strict program an integrator would write against a client generated with default options
 * (openapi-typescript's `paths`, openapi-fetch's `createClient`): for every operation of the
 * document, `client.GET(path, { params })` (or its method) and its `data` read without narrowing. `data` must be
 * exactly the type of the answer's one media type (or undefined, for an error): a JSON envelope
 * whose `data` is read with `data?.data`, the captions a `string`. An operation with a second
 * media type makes `data` a union of both (openapi-fetch's `string | {data: …}`), which fails to
 * compile. Written from the document, so a new operation is covered by itself.
 */
function programOf(document: Document): { text: string; operations: string[] } {
  const lines = [
    `import createClient from 'openapi-fetch';`,
    `import type { paths } from './api';`,
    `const client = createClient<paths>({ baseUrl: 'http://localhost:3000' });`,
    `/** true exactly when A and B are the same type. */`,
    `type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;`,
    `type Answer<P extends keyof paths, M extends string> = paths[P]['get'] extends { responses: { 200: { content: Record<M, infer B> } } } ? B : never;`,
  ];
  const operations: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const op = item.get;
    if (!op) continue;
    operations.push(op.operationId);
    const content = op.responses['200']?.content ?? {};
    const types = Object.keys(content);
    // The one media type (JSON when the document lists several: the others must not leak into its type).
    const media = types.includes('application/json') ? 'application/json' : types[0];
    const byPlace = (place: string) => (op.parameters ?? []).filter((p) => p.in === place && (place === 'path' || p.required));
    const params = ['path', 'query']
      .map((place) => [place, byPlace(place)] as const)
      .filter(([, list]) => list.length > 0)
      .map(([place, list]) => `${place}: { ${list.map((p) => `${JSON.stringify(p.name)}: ${literal(p.schema)}`).join(', ')} }`);
    const call = `client.GET(${JSON.stringify(path)}, { params: { ${params.join(', ')} } })`;
    const expected = `Answer<${JSON.stringify(path)}, ${JSON.stringify(media)}>`;
    lines.push(`export async function ${op.operationId}(): Promise<unknown> {`);
    lines.push(`  const { data } = await ${call};`);
    lines.push(`  const exact: Equals<typeof data, ${expected} | undefined> = true;`);
    const schema = content[media]?.schema ?? {};
    const ref = schema.$ref?.split('/').pop();
    if (
      media === 'application/json' &&
      ref &&
      document.components.schemas[ref]?.properties &&
      'data' in document.components.schemas[ref].properties!
    ) {
      // The envelope's record or list, read as a client reads it: no check of which media type came.
      lines.push(`  return [exact, data?.data];`);
    } else if (schema.type === 'string') {
      lines.push(`  const text: string | undefined = data;`);
      // As one reads it for real: as text, still one string.
      lines.push(
        `  const { data: read } = await client.GET(${JSON.stringify(path)}, { params: { ${params.join(', ')} }, parseAs: 'text' });`,
      );
      lines.push(`  const asText: string | undefined = read;`);
      lines.push(`  return [exact, text?.length, asText?.length];`);
    } else {
      lines.push(`  return [exact, data];`);
    }
    lines.push(`}`);
  }
  // Every other operation (the webhook endpoints' writes): called as a client calls it, its answer
  // read without narrowing: a JSON envelope's `data?.data` (which a second media type, a string,
  // would not compile), nothing of a 204.
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'get' || path === '/oauth/token') continue;
      operations.push(op.operationId);
      const [status, response] = Object.entries(op.responses).find(([code]) => /^2/.test(code))!;
      const media = Object.keys(response.content ?? {});
      const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
      const params = pathParams.length ? `params: { path: { ${pathParams.map((p) => `${JSON.stringify(p.name)}: 'x'`).join(', ')} } }` : '';
      const options = [params, op.requestBody ? 'body: {} as never' : ''].filter(Boolean).join(', ');
      lines.push(`export async function ${op.operationId}(): Promise<unknown> {`);
      lines.push(`  const { data } = await client.${method.toUpperCase()}(${JSON.stringify(path)}, { ${options} });`);
      if (status === '204') lines.push(`  const none: undefined = data;`, `  return none;`);
      else
        lines.push(
          `  const exact: ${JSON.stringify(media)} extends ['application/json'] ? true : never = true;`,
          `  return [exact, data?.data];`,
        );
      lines.push(`}`);
    }
  }
  return { text: `${lines.join('\n')}\n`, operations };
}

/**
 * Generates `paths` from `document` with openapi-typescript's defaults, then compiles the program
 * under --strict: the operations it reads, and each compiler error as `operationId: message`.
 */
async function compile(dir: string, document: Document): Promise<{ operations: string[]; errors: string[] }> {
  await writeFile(join(dir, 'openapi.json'), JSON.stringify(document));
  await run(process.execPath, [GENERATOR, join(dir, 'openapi.json'), '-o', join(dir, 'api.ts')]);
  const { text, operations } = programOf(document);
  await writeFile(join(dir, 'program.ts'), text);
  const output = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: dir }).then(
    () => '',
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}` || 'tsc failed',
  );
  const lines = text.split('\n');
  const errors = output
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith(' '))
    .map((line) => {
      const at = /^program\.ts\((\d+),\d+\): (.*)$/.exec(line);
      if (!at) return line;
      const fn = lines
        .slice(0, Number(at[1]))
        .reverse()
        .find((l) => l.startsWith('export async function'));
      return `${/function (\w+)/.exec(fn ?? '')?.[1] ?? 'program'}: ${at[2]}`;
    });
  return { operations, errors };
}

describe('a client generated from /openapi.json with default options', () => {
  let app: NestExpressApplication;
  let document: Document;
  let dir: string;

  beforeAll(async () => {
    app = await createTestApp();
    document = (await request(app.getHttpServer()).get('/openapi.json').expect(200)).body;
    dir = mkdtempSync(join(tmpdir(), 'generated-client-'));
    // openapi-fetch and TypeScript's DOM types from the repository's node_modules.
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const compilerOptions = {
      strict: true,
      noEmit: true,
      target: 'es2022',
      module: 'esnext',
      moduleResolution: 'bundler',
      lib: ['es2022', 'dom'],
      types: [],
      skipLibCheck: true,
    };
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['program.ts'] }));
  });
  afterAll(async () => {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('types every operation’s answer as its one media type: a program reading each without narrowing compiles under --strict', async () => {
    const { operations, errors } = await compile(dir, document);
    expect(errors).toEqual([]);
    expect(operations).toEqual(
      expect.arrayContaining(['getMeetingTranscript', 'getMeetingTranscriptCaptions', 'getCallTranscriptCaptions']),
    );
    expect(operations).toHaveLength(34); // every operation but the token endpoint's POST
  }, 120_000);

  it('fails to compile once an operation answers a second media type (the break the captions route avoided)', async () => {
    const broken = structuredClone(document);
    broken.paths['/v1/meetings/{meeting_id}/transcript'].get.responses['200'].content!['text/vtt'] = { schema: { type: 'string' } };
    const { errors } = await compile(dir, broken);
    // That operation's function, and no other: its `data` is now `string | TranscriptEnvelope`.
    expect(errors.length).toBeGreaterThan(0);
    expect([...new Set(errors.map((e) => e.split(':')[0]))]).toEqual(['getMeetingTranscript']);
    expect(errors).toContain("getMeetingTranscript: error TS2322: Type 'true' is not assignable to type 'false'.");
  }, 120_000);
});
