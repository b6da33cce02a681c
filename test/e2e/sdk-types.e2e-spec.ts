import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { UNREACHED_RATE_LIMITS, createTestApp } from '../support/test-app';

const run = promisify(execFile);
const SDK = join(__dirname, '../../sdk');
const GENERATOR = join(__dirname, '../../node_modules/openapi-typescript/bin/cli.js');

/**
 * The SDK's types are generated from the document the service serves, and checked in
 * (sdk/openapi.json, sdk/src/generated/openapi.ts): this test fails when either differs from what
 * the current service serves. `UPDATE_SDK_TYPES=1 npx jest --selectProjects e2e -- test/e2e/sdk-types`
 * writes them anew (then review the diff and commit it).
 */
describe('the SDK against the served OpenAPI document', () => {
  let app: NestExpressApplication;
  let document: { info: { version: string } };

  beforeAll(async () => {
    // The documented quotas are the defaults, not the tests' unreachable ones.
    app = await createTestApp({ env: Object.fromEntries(Object.keys(UNREACHED_RATE_LIMITS).map((name) => [name, undefined])) });
    document = (await request(app.getHttpServer()).get('/openapi.json').expect(200)).body;
  });
  afterAll(() => app.close());

  it('sdk/openapi.json and sdk/src/generated/openapi.ts are what the current service serves, and the SDK version is its info.version', async () => {
    const served = `${JSON.stringify(document, null, 2)}\n`;
    const dir = await mkdtemp(join(tmpdir(), 'sdk-types-'));
    try {
      await writeFile(join(dir, 'openapi.json'), served);
      await run(process.execPath, [GENERATOR, join(dir, 'openapi.json'), '-o', join(dir, 'openapi.ts')]);
      const generated = await readFile(join(dir, 'openapi.ts'), 'utf8');
      if (process.env.UPDATE_SDK_TYPES === '1') {
        await writeFile(join(SDK, 'openapi.json'), served);
        await writeFile(join(SDK, 'src/generated/openapi.ts'), generated);
      }
      const stale = 'is stale: UPDATE_SDK_TYPES=1 npx jest --selectProjects e2e -- test/e2e/sdk-types writes it anew';
      expect([`sdk/openapi.json ${stale}`, await readFile(join(SDK, 'openapi.json'), 'utf8') === served]).toEqual([
        `sdk/openapi.json ${stale}`,
        true,
      ]);
      expect(await readFile(join(SDK, 'src/generated/openapi.ts'), 'utf8')).toBe(generated);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const pkg = JSON.parse(await readFile(join(SDK, 'package.json'), 'utf8')) as { version: string };
    expect(pkg.version).toBe(document.info.version);
  });
});
