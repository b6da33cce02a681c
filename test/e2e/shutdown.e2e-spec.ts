import { ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { DataSource } from 'typeorm';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { createClient } from '../support/credentials';
import { createCompany } from '../support/factories';
import { processToken, startServiceProcess } from '../support/service-process';
import { ownerDataSource, sleep } from '../support/test-app';

interface Outcome {
  sentAt: number;
  status?: number;
  complete?: boolean;
  error?: string;
}

/** One GET over `agent`: its status and whether the whole JSON body arrived, or the socket error. */
function get(port: number, path: string, headers: Record<string, string>, agent: Agent | false): Promise<Outcome> {
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        let complete = true;
        try {
          JSON.parse(body);
        } catch {
          complete = false;
        }
        resolve({ sentAt, status: res.statusCode, complete });
      });
      res.on('error', (e: NodeJS.ErrnoException) =>
        resolve({ sentAt, status: res.statusCode, complete: false, error: e.code ?? e.message }),
      );
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ sentAt, error: e.code ?? e.message }));
    req.end();
  });
}

describe('graceful shutdown under load (the service as its own process)', () => {
  const DELAY_MS = 1000;
  const GRACE_MS = 5000;
  let owner: DataSource;
  let child: ChildProcess;
  let port: number;
  let token: string;

  beforeAll(async () => {
    owner = await ownerDataSource();
    const company = await createCompany(owner);
    const factory = new RecordingsFactory(owner.manager, company.id);
    const user = await factory.user();
    for (let i = 0; i < 30; i++) await factory.recording('meeting', { owner: user, transcript: 'enhanced', evaluation: 'completed' });
    const client = await createClient(owner, company, { scopes: ['meetings.read'] });
    const service = await startServiceProcess({ SHUTDOWN_DELAY_MS: String(DELAY_MS), SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    [child, port] = [service.child, service.port];
    token = await processToken(service.base, client);
  }, 90_000);

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await owner.destroy();
  });

  it('on SIGTERM turns readiness 503 first, completes every request in flight, then exits within the grace', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    const outcomes: Outcome[] = [];
    let running = true;
    const clients = Array.from({ length: 50 }, async () => {
      while (running) {
        const outcome = await get(port, '/v1/meetings?limit=100', { authorization: `Bearer ${token}` }, agent);
        outcomes.push(outcome);
        if (outcome.error === 'ECONNREFUSED') return; // the server has stopped accepting
      }
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await sleep(1000);
    const sigtermAt = Date.now();
    child.kill('SIGTERM');
    // Readiness is asked until it answers 503; what counts is when the request that got it was
    // *sent* (within the delay, while the listener still accepts): under this load on a busy
    // machine its answer can take longer than the delay itself to arrive.
    let readyStatus: number | undefined;
    let readyAfter = 0;
    while (readyStatus !== 503 && Date.now() - sigtermAt < DELAY_MS) {
      const probe = await get(port, '/health/ready', {}, false);
      readyStatus = probe.status;
      readyAfter = probe.sentAt - sigtermAt;
    }
    const code = await exited;
    const exitAfter = Date.now() - sigtermAt;
    running = false;
    await Promise.all(clients);
    agent.destroy();

    expect(readyStatus).toBe(503);
    expect(readyAfter).toBeLessThan(DELAY_MS);
    expect(code).toBe(0);
    expect(exitAfter).toBeGreaterThanOrEqual(DELAY_MS);
    expect(exitAfter).toBeLessThan(DELAY_MS + GRACE_MS);
    // Every answer that came was whole and successful.
    const answered = outcomes.filter((o) => o.status !== undefined);
    expect(answered.length).toBeGreaterThan(50);
    expect(answered.every((o) => o.status === 200 && o.complete)).toBe(true);
    // Draining (server.close) completes every request the server has begun and closes the
    // connections that carry none, which includes a new connection whose request the busy
    // event loop has not read yet. So: everything sent well before draining was answered, and
    // the only failures are connection-level (safe to retry), all sent just before or after it.
    const drainAt = sigtermAt + DELAY_MS;
    const failed = outcomes.filter((o) => o.status === undefined);
    expect(outcomes.filter((o) => o.sentAt < drainAt - 500 && o.status !== 200)).toEqual([]);
    expect(failed.every((o) => ['ECONNREFUSED', 'ECONNRESET', 'socket hang up'].includes(o.error!))).toBe(true);
  }, 60_000);
});
