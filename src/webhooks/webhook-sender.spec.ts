import { outcomeOf, withJitter } from './webhook-sender';

describe('retry schedule', () => {
  it('jitters each delay within ±20%, in milliseconds', () => {
    expect(withJitter(10, () => 0)).toBe(8_000);
    expect(withJitter(10, (max) => max - 1)).toBe(12_000);
    expect(withJitter(10, (max) => (max - 1) / 2)).toBe(10_000);
    for (let i = 0; i < 1000; i++) {
      const ms = withJitter(1);
      expect(ms).toBeGreaterThanOrEqual(800);
      expect(ms).toBeLessThanOrEqual(1200);
    }
  });

  const delivery = (attempts: number) => ({ id: '1', change_id: 'chg_1', event_type: 'meeting.created', payload: '{}', attempts });
  const failed = { delivered: false, status: 500, error: 'HTTP 500', latencyMs: 12 };
  const at = (made: number) => new Date(made * 1000);

  it('retries a failure while the schedule lasts, at the time for its attempt number, then gives up', () => {
    const schedule = [1, 2, 4];
    expect(outcomeOf(delivery(0), failed, schedule, at)).toEqual({
      id: '1',
      status: 500,
      error: 'HTTP 500',
      latencyMs: 12,
      next: 'pending',
      nextAttemptAt: at(1),
    });
    expect(outcomeOf(delivery(2), failed, schedule, at)).toMatchObject({ next: 'pending', nextAttemptAt: at(3) });
    expect(outcomeOf(delivery(3), failed, schedule, at)).toMatchObject({ next: 'failed', nextAttemptAt: null });
  });

  it('records a success as delivered whatever the attempt', () => {
    const ok = { delivered: true, status: 204, error: null, latencyMs: 3 };
    expect(outcomeOf(delivery(3), ok, [1], at)).toMatchObject({ next: 'delivered', status: 204, nextAttemptAt: null });
  });

  it('spans at least 72 hours by default, jitter included', async () => {
    const { DEFAULT_RETRY_SCHEDULE } = await import('../config/app-config');
    const total = DEFAULT_RETRY_SCHEDULE.reduce((a, b) => a + b, 0);
    expect(total * 0.8).toBeGreaterThanOrEqual(72 * 3600);
  });
});
