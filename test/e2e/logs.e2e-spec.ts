import { DataSource } from 'typeorm';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { createClient } from '../support/credentials';
import { createCompany } from '../support/factories';
import { processToken, ServiceProcess, startServiceProcess } from '../support/service-process';
import { eventually, ownerDataSource } from '../support/test-app';

interface RequestLine {
  msg: string;
  req: { id: string; method: string; path?: string; url?: string; headers?: unknown };
  res: { statusCode: number };
  responseTime: number;
  route: string;
  client_id?: string;
  company_id?: string;
}

/**
 * The request log as an operator reads it: the service's own stdout, one JSON line per request,
 * or readable lines with LOG_FORMAT=pretty.
 */
describe('request logs', () => {
  let db: DataSource;
  let json: ServiceProcess;
  let pretty: ServiceProcess;
  let company: { publicId: string };
  let client: { clientId: string; clientSecret: string };
  let meetingId: string;

  beforeAll(async () => {
    db = await ownerDataSource();
    const created = await createCompany(db);
    company = created;
    const factory = new RecordingsFactory(db, created.id);
    meetingId = (await factory.recording('meeting', { owner: await factory.user() })).publicId;
    client = await createClient(db, created);
    [json, pretty] = await Promise.all([
      startServiceProcess({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }),
      startServiceProcess({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([json?.stop(), pretty?.stop()]);
    await db.destroy();
  });

  const lines = (service: ServiceProcess): RequestLine[] =>
    service
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as RequestLine)
      .filter((l) => l.req && l.res);

  it('writes one JSON line per request: id, method, route template, status, latency, client and company; no path, query or secret', async () => {
    const token = await processToken(json.base, client);
    const auth = { authorization: `Bearer ${token}` };
    const asked = [
      await fetch(`${json.base}/v1/meetings/${meetingId}`, { headers: auth }),
      await fetch(`${json.base}/v1/meetings?owner_email=${encodeURIComponent('private.person@example.com')}`, { headers: auth }),
      await fetch(`${json.base}/v1/meetings`, { headers: { authorization: 'Bearer not-a-token' } }),
      await fetch(`${json.base}/nothing/here?q=1`),
    ];
    const ids = asked.map((r) => r.headers.get('x-request-id')!);
    await eventually(async () => ids.every((id) => lines(json).some((l) => l.req.id === id)), 30_000);
    const byId = (id: string) => lines(json).filter((l) => l.req.id === id);
    expect(ids.map((id) => byId(id).length)).toEqual([1, 1, 1, 1]);
    const [single, list, refused, unmatched] = ids.map((id) => byId(id)[0]);
    expect(single).toMatchObject({
      req: { method: 'GET' },
      res: { statusCode: 200 },
      route: '/v1/meetings/:meeting_id',
      client_id: client.clientId,
      company_id: company.publicId,
    });
    expect(single.responseTime).toEqual(expect.any(Number));
    expect(list).toMatchObject({ route: '/v1/meetings', res: { statusCode: 200 }, client_id: client.clientId });
    expect(refused).toMatchObject({ route: '/v1/meetings', res: { statusCode: 401 } });
    expect(refused.client_id).toBeUndefined();
    expect(unmatched).toMatchObject({ route: 'unmatched', res: { statusCode: 404 } });
    // Nothing a request carried beyond its route: no ids of records, filter values, tokens or secrets.
    const text = json.output();
    for (const leak of [meetingId, 'private.person', 'owner_email', token, 'not-a-token', client.clientSecret, 'nothing/here']) {
      expect({ leak, found: text.includes(leak) }).toEqual({ leak, found: false });
    }
  });

  it('writes readable lines with LOG_FORMAT=pretty', async () => {
    const res = await fetch(`${pretty.base}/v1/context`);
    expect(res.status).toBe(401);
    const id = res.headers.get('x-request-id')!;
    await eventually(async () => pretty.output().includes(id), 30_000);
    const line = pretty
      .output()
      .split('\n')
      .find((l) => l.includes(id))!;
    expect(line.startsWith('{')).toBe(false);
    expect(line).toMatch(/request (completed|errored)/);
    expect(line).toContain('/v1/context');
  });
});
