import { Logger } from '@nestjs/common';
import { loadConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import { BackgroundLoop } from './background-loop';
import { BackgroundRunner, loopsByName } from './background-runner';

const loop = (name: string) => new BackgroundLoop(name, 1000, async () => undefined, new Logger('test'));

describe('loopsByName', () => {
  const loops = [loop('webhook-dispatch'), loop('webhook-send'), loop('audit-partitions')];

  it('answers each named loop', () => {
    const named = loopsByName(loops, ['webhook-send', 'webhook-dispatch']);
    expect(named['webhook-send']).toBe(loops[1]);
    expect(named['webhook-dispatch']).toBe(loops[0]);
  });

  it('refuses a name no loop has, saying which loops there are', () => {
    expect(() => loopsByName(loops, ['webhook-send', 'webhook-sender'])).toThrow(
      'the worker names the loop "webhook-sender", which it does not define (it defines webhook-dispatch, webhook-send, audit-partitions)',
    );
  });

  it('refuses a loop name defined twice', () => {
    expect(() => loopsByName([...loops, loop('webhook-send')], ['webhook-send'])).toThrow(
      'the worker defines the loop "webhook-send" twice',
    );
  });
});

describe('BackgroundRunner at start-up', () => {
  /** The runner over the configuration `env` adds to the test one; nothing it defines runs here. */
  const runner = (env: Record<string, string> = {}) => {
    const unused = {} as never;
    return new BackgroundRunner(
      loadConfig({ NODE_ENV: 'test', ...env }),
      unused,
      unused,
      unused,
      unused,
      unused,
      unused,
      unused,
      unused,
      new Metrics(false),
    );
  };

  it('defines every loop it wakes, with change compaction on or off', () => {
    expect(runner().loops.map((l) => l.name)).toEqual([
      'webhook-dispatch',
      'webhook-send',
      'webhook-retention',
      'documents-refresh',
      'change-horizon',
      'change-compaction',
      'audit-partitions',
    ]);
    expect(runner({ CHANGES_COMPACT_INTERVAL_SECONDS: '0' }).loops.map((l) => l.name)).not.toContain('change-compaction');
  });
});
