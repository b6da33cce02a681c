import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { PipelineProbeModule } from '../support/pipeline-probe.module';
import { createTestApp, ownerDataSource } from '../support/test-app';

/** Private memory of a PostgreSQL backend (same machine): where prepared statements and their plans live. */
function anonymousKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^RssAnon:\s+(\d+) kB/m.exec(status)![1]);
}

/** Thousands of distinct list requests: every filter combination and page size a client can send. */
const listRequest = fc
  .record(
    {
      created_after: fc.constant('2020-01-01T00:00:00Z'),
      created_before: fc.constant('2030-01-01T00:00:00Z'),
      meeting_after: fc.constant('2020-01-01T00:00:00Z'),
      meeting_before: fc.constant('2030-01-01T00:00:00Z'),
      owner_email: fc.constant('ana@example.com'),
      type: fc.constantFrom('video', 'audio'),
      audience: fc.constantFrom('internal', 'external'),
      has_transcript: fc.constantFrom('true', 'false'),
      limit: fc.integer({ min: 1, max: 100 }).map(String),
    },
    { requiredKeys: [] },
  )
  .map((query) => `/v1/${Math.random() < 0.5 ? 'meetings' : 'calls'}?${new URLSearchParams(query as Record<string, string>)}`);

describe('prepared statements per connection stay bounded (an attacker under quota cannot grow a backend)', () => {
  let owner: DataSource;
  let company: Company;

  beforeAll(async () => {
    owner = await ownerDataSource();
    company = await createCompany(owner);
  });
  afterAll(() => owner.destroy());

  async function appWith(env: NodeJS.ProcessEnv) {
    const app = await createTestApp({ extra: [PipelineProbeModule], env: { DB_POOL_SIZE: '2', ...env } });
    const http = request(app.getHttpServer());
    const token = await tokenFor(http, await createClient(owner, company, { scopes: ['meetings.read', 'calls.read'] }));
    return { app, http, token };
  }

  /** Every backend of the pool (two), as seen from inside a tenant transaction. */
  async function backends(http: ReturnType<typeof request>): Promise<Map<number, number>> {
    const seen = new Map<number, number>();
    const probe = () => http.get('/v1/_probe/statements').set('x-test-company', company.id).expect(200);
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const [a, b] = await Promise.all([probe(), probe()]);
      for (const { body } of [a, b]) seen.set(body.data.pid, body.data.prepared);
    }
    return seen;
  }

  it('keeps at most DB_MAX_PREPARED_STATEMENTS per backend, evicting the least recently used, with memory bounded', async () => {
    // SECURITY_STATS=1 prints what each backend kept and grew; PREPARED_CAP sets the cap to measure another (docs/SECURITY.md).
    const MAX = Number(process.env.PREPARED_CAP ?? 24);
    const { app, http, token } = await appWith({ DB_MAX_PREPARED_STATEMENTS: String(MAX) });
    try {
      const send = async (paths: string[]) => {
        for (let i = 0; i < paths.length; i += 2) {
          await Promise.all(paths.slice(i, i + 2).map((p) => http.get(p).set('Authorization', `Bearer ${token}`).expect(200)));
        }
      };
      await send(fc.sample(listRequest, { numRuns: 200, seed: 1 }));
      const warm = await backends(http);
      const baseline = new Map([...warm.keys()].map((pid) => [pid, anonymousKb(pid)]));
      await send(fc.sample(listRequest, { numRuns: 2000, seed: 2 }));
      const after = await backends(http);
      expect([...after.keys()].sort()).toEqual([...baseline.keys()].sort()); // the same two backends
      for (const [pid, prepared] of after) {
        expect({ pid, prepared: prepared <= MAX }).toEqual({ pid, prepared: true });
        // Unbounded, 2,000 requests of over 1,000 distinct texts cost a backend hundreds of MB.
        const grownMb = (anonymousKb(pid) - baseline.get(pid)!) / 1024;
        if (process.env.SECURITY_STATS)
          console.log(
            `backend ${pid}: ${prepared} prepared, private memory ${(baseline.get(pid)! / 1024) | 0} → ${(anonymousKb(pid) / 1024) | 0} MB (+${grownMb.toFixed(1)} MB)`,
          );
        expect({ pid, grownMb: grownMb < 40 }).toEqual({ pid, grownMb: true });
      }
    } finally {
      await app.close();
    }
  }, 120_000);

  it('prepares nothing with DB_MAX_PREPARED_STATEMENTS=0 (for a pooler in transaction mode), answering the same', async () => {
    const { app, http, token } = await appWith({ DB_MAX_PREPARED_STATEMENTS: '0' });
    try {
      for (const path of fc.sample(listRequest, { numRuns: 40, seed: 3 })) {
        await http.get(path).set('Authorization', `Bearer ${token}`).expect(200);
      }
      for (const prepared of (await backends(http)).values()) expect(prepared).toBe(0);
    } finally {
      await app.close();
    }
  });
});
