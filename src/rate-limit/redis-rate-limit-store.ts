import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { Consumption, Counter, Demand, RateLimitStore } from './rate-limit-store';

/**
 * KEYS: the request's counters. ARGV[1]: 'consume' or 'peek'; then, per key, its limit, its
 * window in milliseconds and the request's cost. One atomic step: read every counter; when
 * consuming and none is at its limit, count the cost on all of them (a new window starts with its expiry, so Redis's
 * clock ends windows, not the instances'). Reply: allowed (1/0), then hits and milliseconds
 * left per key.
 */
const FIXED_WINDOW_SCRIPT = `
local consume = ARGV[1] == 'consume'
local hits, left, allowed = {}, {}, 1
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[3 * i - 1])
  local window = tonumber(ARGV[3 * i])
  local ttl = redis.call('PTTL', key)
  if ttl > 0 then
    hits[i] = tonumber(redis.call('GET', key)) or 0
    left[i] = ttl
  else
    hits[i] = 0
    left[i] = window
  end
  if hits[i] >= limit then allowed = 0 end
end
if consume and allowed == 1 then
  for i, key in ipairs(KEYS) do
    local cost = tonumber(ARGV[3 * i + 1])
    if hits[i] == 0 then
      redis.call('SET', key, cost, 'PX', ARGV[3 * i])
    else
      redis.call('INCRBY', key, cost)
    end
    hits[i] = hits[i] + cost
  end
end
local reply = { allowed }
for i = 1, #KEYS do
  reply[2 * i] = hits[i]
  reply[2 * i + 1] = left[i]
end
return reply
`;

/**
 * KEYS: the counters to take one hit back from. ARGV: per key, its window in milliseconds. A
 * counter whose window still runs loses one hit (never below 0; its expiry kept); an ended
 * window is not recreated. Reply: hits and milliseconds left per key, as FIXED_WINDOW_SCRIPT's.
 */
const REFUND_SCRIPT = `
local reply = {}
for i, key in ipairs(KEYS) do
  local ttl = redis.call('PTTL', key)
  local hits = 0
  if ttl > 0 then
    hits = tonumber(redis.call('GET', key)) or 0
    if hits > 0 then hits = redis.call('DECR', key) end
  else
    ttl = tonumber(ARGV[i])
  end
  reply[2 * i - 1] = hits
  reply[2 * i] = ttl
end
return reply
`;

interface FixedWindowCommand {
  fixedWindow(keyCount: number, ...keysAndArgs: Array<string | number>): Promise<number[]>;
  refundWindow(keyCount: number, ...keysAndArgs: Array<string | number>): Promise<number[]>;
}

/** How long the service waits at start for a first connection before serving (then 503 until Redis answers). */
const READY_WAIT_MS = 2000;

/**
 * Counters in Redis, shared by every instance (REDIS_URL). Fail fast, never hang: no offline
 * queue (a command without a connection fails at once), no retry of a command caught by a
 * disconnect, and a command timeout for a server that stops answering. The client keeps
 * reconnecting on its own, so the service recovers when Redis does.
 */
export class RedisRateLimitStore extends RateLimitStore implements OnModuleInit, OnModuleDestroy {
  readonly shared = true;
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;
  private available = true;

  constructor(url: string, timeoutMs: number) {
    super();
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: timeoutMs,
      connectTimeout: Math.max(timeoutMs, 1000),
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
      connectionName: 'conversation-read-api',
    });
    this.redis.defineCommand('fixedWindow', { lua: FIXED_WINDOW_SCRIPT });
    this.redis.defineCommand('refundWindow', { lua: REFUND_SCRIPT });
    this.redis.on('error', (error: Error) => this.unavailable(error));
    this.redis.on('ready', () => this.recovered());
  }

  async consume(demands: readonly Demand[]): Promise<Consumption> {
    const [allowed, ...counters] = await this.run(demands, 'consume');
    return { allowed: allowed === 1, counters: pairs(counters) };
  }

  async peek(demands: readonly Demand[]): Promise<Counter[]> {
    const [, ...counters] = await this.run(demands, 'peek');
    return pairs(counters);
  }

  async refund(demands: readonly Demand[]): Promise<Counter[]> {
    const command = this.redis as unknown as FixedWindowCommand;
    return pairs(await this.reached(() => command.refundWindow(demands.length, ...demands.map((d) => d.key), ...demands.map((d) => d.windowMs))));
  }

  async check(): Promise<void> {
    await this.redis.ping();
  }

  async onModuleInit(): Promise<void> {
    if (this.ready) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, READY_WAIT_MS);
      this.redis.once('ready', done);
    });
    if (!this.ready) this.logger.warn('Redis is not reachable yet: rate-limited routes answer 503 until it is');
  }

  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }

  private run(demands: readonly Demand[], mode: 'consume' | 'peek'): Promise<number[]> {
    const args = demands.flatMap((d) => [d.limit, d.windowMs, d.cost ?? 1]);
    return this.reached(() =>
      (this.redis as unknown as FixedWindowCommand).fixedWindow(demands.length, ...demands.map((d) => d.key), mode, ...args),
    );
  }

  /** A command's reply; its failure logged once per outage and rethrown. */
  private async reached(command: () => Promise<number[]>): Promise<number[]> {
    try {
      const reply = await command();
      this.recovered();
      return reply;
    } catch (error) {
      this.unavailable(error as Error);
      throw error;
    }
  }

  /** Logged once per outage, not once per request. */
  private unavailable(error: Error): void {
    if (!this.available) return;
    this.available = false;
    this.logger.warn({ err: error.message }, 'rate-limit store unavailable');
  }

  private recovered(): void {
    if (this.available) return;
    this.available = true;
    this.logger.log('rate-limit store reachable again');
  }
}

function pairs(flat: number[]): Counter[] {
  const counters: Counter[] = [];
  for (let i = 0; i < flat.length; i += 2) counters.push({ hits: flat[i], resetMs: flat[i + 1] });
  return counters;
}
