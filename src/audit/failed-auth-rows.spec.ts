import type { AuditEvent } from './audit-event';
import { FAILED_AUTH_ROWS, FAILED_AUTH_WINDOW_MS, FailedAuthRows } from './failed-auth-rows';

const event = (n: number, address = '203.0.113.9', company: string | null = null): AuditEvent => ({
  occurredAt: new Date(),
  requestId: `req_${n}`,
  company,
  client: null,
  address,
  method: 'GET',
  route: 'GET /v1/meetings',
  pathParams: {},
  query: {},
  status: 401,
  resourceIds: [],
  truncated: false,
});

describe('FailedAuthRows', () => {
  let written: AuditEvent[];
  let rows: FailedAuthRows;

  beforeEach(() => {
    jest.useFakeTimers();
    written = [];
    rows = new FailedAuthRows((e) => written.push(e));
  });
  afterEach(() => jest.useRealTimers());

  it('writes the first failures of an address and reason at once, the rest of the window as one row with their count', () => {
    for (let n = 0; n < 500; n++) rows.record(event(n), 'INVALID_ACCESS_TOKEN');
    expect(written.map((e) => e.requestId)).toEqual(Array.from({ length: FAILED_AUTH_ROWS }, (_, n) => `req_${n}`));
    jest.advanceTimersByTime(FAILED_AUTH_WINDOW_MS);
    expect(written).toHaveLength(FAILED_AUTH_ROWS + 1);
    expect(written[FAILED_AUTH_ROWS]).toMatchObject({ requestId: `req_${FAILED_AUTH_ROWS}`, attempts: 500 - FAILED_AUTH_ROWS });
    // A new window starts afresh.
    rows.record(event(500), 'INVALID_ACCESS_TOKEN');
    expect(written.at(-1)).toMatchObject({ requestId: 'req_500' });
    expect(written.at(-1)?.attempts).toBeUndefined();
  });

  it('gathers each address, reason and company apart', () => {
    for (let n = 0; n < FAILED_AUTH_ROWS; n++) rows.record(event(n), 'INVALID_ACCESS_TOKEN');
    rows.record(event(100, '198.51.100.1'), 'INVALID_ACCESS_TOKEN');
    rows.record(event(101), 'MISSING_ACCESS_TOKEN');
    rows.record(event(102, '203.0.113.9', 'cmp_x'), 'INVALID_ACCESS_TOKEN');
    expect(written.slice(FAILED_AUTH_ROWS).map((e) => e.requestId)).toEqual(['req_100', 'req_101', 'req_102']);
  });

  it('writes what it gathered when flushed (the service stopping)', () => {
    for (let n = 0; n < FAILED_AUTH_ROWS + 3; n++) rows.record(event(n), 'INVALID_CLIENT');
    rows.flush();
    expect(written.at(-1)).toMatchObject({ attempts: 3 });
  });

  it('gathers an IPv6 host rotating its addresses within its /64 as one address, as the failed-auth limit counts it', () => {
    for (let n = 0; n < 300; n++) rows.record(event(n, `2001:db8:1:2::${n.toString(16)}`), 'INVALID_ACCESS_TOKEN');
    rows.record(event(300, '2001:db8:1:3::1'), 'INVALID_ACCESS_TOKEN');
    expect(written).toHaveLength(FAILED_AUTH_ROWS + 1);
    expect(written.at(-1)?.requestId).toBe('req_300');
    rows.flush();
    expect(written.at(-1)).toMatchObject({ attempts: 300 - FAILED_AUTH_ROWS });
  });

  it('dates a gathered row when it is written (the window’s end), so a reader paging newest first still meets it', () => {
    const start = Date.now();
    for (let n = 0; n < FAILED_AUTH_ROWS + 1; n++) rows.record(event(n), 'INVALID_CLIENT');
    jest.advanceTimersByTime(FAILED_AUTH_WINDOW_MS);
    expect(written.at(-1)?.occurredAt.getTime()).toBeGreaterThanOrEqual(start + FAILED_AUTH_WINDOW_MS);
  });
});
