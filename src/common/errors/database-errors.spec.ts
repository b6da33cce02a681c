import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable, isRetryableTransaction } from './database-errors';

describe('isRetryableTransaction', () => {
  const pgError = (code: string) => Object.assign(new Error('from PostgreSQL'), { code });

  it('is a serialization failure or a deadlock, raw or wrapped by TypeORM', () => {
    for (const code of ['40001', '40P01']) {
      expect(isRetryableTransaction(pgError(code))).toBe(true);
      expect(isRetryableTransaction(new QueryFailedError('UPDATE users …', [], pgError(code)))).toBe(true);
    }
  });

  it('is nothing else: a refused capture, a unique violation, an outage (answered 503, not run again here)', () => {
    for (const code of ['0A000', '23505', '57014', '08006']) expect(isRetryableTransaction(pgError(code))).toBe(false);
    expect(isRetryableTransaction(new Error('plain'))).toBe(false);
    expect(isRetryableTransaction(undefined)).toBe(false);
    expect(isDatabaseUnavailable(pgError('40001'))).toBe(false);
  });
});

describe('isDatabaseUnavailable: a hot standby cancelling a read for its replay', () => {
  it('is a 503 (retry), not a 500: a conflict with recovery, raw or wrapped', () => {
    const conflict = Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40001' });
    const deadlock = Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40P01' });
    expect(isDatabaseUnavailable(conflict)).toBe(true);
    expect(isDatabaseUnavailable(deadlock)).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT …', [], conflict))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('could not serialize access'), { code: '40001' }))).toBe(false);
  });
});
