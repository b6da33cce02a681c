import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createTestApp } from '../support/test-app';

const ROOT = resolve(__dirname, '../..');

/** Every Markdown file of the repository (not dependencies, builds or data). */
function markdownFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', '.git', '.data', 'coverage'].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

describe('the repository documents itself', () => {
  it('has an integrator guide linked from the README, with /docs and /openapi.json', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('](docs/API.md)');
    expect(readme).toContain('GET /docs');
    expect(readme).toContain('GET /openapi.json');
  });

  it('has no link that points outside the repository', () => {
    const outside: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target)) continue; // web addresses and anchors are not files
        const path = resolve(dirname(file), target.split('#')[0]);
        const where = `${relative(ROOT, file)} → ${target}`;
        if (relative(ROOT, path).startsWith('..') || !existsSync(path)) outside.push(where);
      }
      for (const [mention] of text.matchAll(/\.\.\/shared\b\S*/g)) outside.push(`${relative(ROOT, file)} mentions ${mention}`);
    }
    expect(outside).toEqual([]);
  });

  describe('docs/API.md', () => {
    let app: NestExpressApplication;
    let paths: string[];
    beforeAll(async () => {
      app = await createTestApp();
      paths = Object.keys((await request(app.getHttpServer()).get('/openapi.json').expect(200)).body.paths);
    });
    afterAll(() => app.close());

    it('names only routes the API has, and every one of them', () => {
      const guide = readFileSync(join(ROOT, 'docs/API.md'), 'utf8');
      const served = [...paths, '/openapi.json', '/docs'];
      const named = new Set([...guide.matchAll(/`(?:GET|POST) (\/[^`\s?]+)`/g)].map(([, path]) => path));
      expect([...named].filter((path) => !served.includes(path))).toEqual([]);
      expect(paths.filter((path) => !guide.includes(path.split('/{')[0]))).toEqual([]);
      // Sub-resources are named by their suffix in the routes table.
      for (const suffix of ['/evaluations/overall', '/answers', '/transcript', '/transcript/captions', '/messages'])
        expect(guide).toContain(`{id}${suffix}`.replace('{id}/messages', 'messages'));
    });
  });
});
