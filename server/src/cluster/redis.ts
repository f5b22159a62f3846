/**
 * The one Redis connection an instance shares between its parts (rate limits, login throttle,
 * readiness), plus a second one for pub/sub, which Redis reserves for subscribing. Only built when
 * REDIS_URL is set: without it every counter and cache stays in the process, as in a single
 * install.
 *
 * Redis is never worth waiting for (docs/decisions/faults.md "Redis outages"): while it is unreachable a
 * command fails at once instead of queueing, one it does not answer fails after
 * REDIS_TIMEOUT_MS, a connection that stops answering is dropped and dialled again, and
 * the client keeps dialling for as long as it takes. Callers then go on without Redis.
 */
import { Redis, type RedisOptions } from 'ioredis';

/** See Config.redisTimeoutMs (config.ts). */
export const DEFAULT_REDIS_TIMEOUT_MS = 500;

/** REDIS_URL, REDIS_PREFIX and REDIS_TIMEOUT_MS, as config.ts reads them. */
export interface RedisConfig {
  redisUrl?: string;
  redisPrefix: string;
  redisTimeoutMs?: number;
}

/** An idle connection is pinged this often, so a silent partition is noticed without a request. */
const HEARTBEAT_MS = 1_000;
/** Longest pause between two connection attempts: an instance rejoins this soon after Redis is back. */
const MAX_RECONNECT_DELAY_MS = 1_000;

export function redisOptions(commandTimeoutMs: number): RedisOptions {
  return {
    // Fail at once while disconnected: a request must not wait for a reconnect.
    enableOfflineQueue: false,
    // Commands in flight when the connection drops fail then, and are not sent again later.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
    // No byte back for this long while commands wait: the connection is dead (a partition leaves
    // it open), so it is dropped, which fails what waits on it and starts a reconnect.
    socketTimeout: commandTimeoutMs,
    connectTimeout: Math.max(2_000, commandTimeoutMs),
    // Reconnect forever, backing off to at most a second between attempts.
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt - 1, 10), MAX_RECONNECT_DELAY_MS),
  };
}

export function createRedis(config: RedisConfig): Redis | undefined {
  if (!config.redisUrl) return undefined;
  const redis = new Redis(config.redisUrl, {
    keyPrefix: config.redisPrefix,
    lazyConnect: false,
    ...redisOptions(config.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS),
  });
  keepWatch(redis);
  return redis;
}

/**
 * Pings a connection every second while it is up. A connection through a partition stays open and
 * silent; the ping's unanswered reply trips the socket timeout, so the client notices and
 * reconnects even when no request is using it (the pub/sub connection never sends otherwise).
 */
export function keepWatch(client: Redis): void {
  const timer = setInterval(() => {
    if (client.status === 'ready') client.ping().catch(() => {});
  }, HEARTBEAT_MS);
  timer.unref();
  client.once('end', () => clearInterval(timer));
}

/**
 * Calls report with the first error of each outage only: a client that dials every second while
 * Redis is down would otherwise log a line per attempt.
 */
export function reportOutages(client: Redis, report: (err: unknown) => void): void {
  let down = false;
  client.on('error', (err) => {
    if (down) return;
    down = true;
    report(err);
  });
  client.on('ready', () => {
    down = false;
  });
}

/** Settles once a client's first connection attempt is over: connected, or failed (it keeps dialling). */
export function firstAttempt(client: Redis): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      client.off('ready', done);
      client.off('error', done);
      client.off('close', done);
      resolve();
    };
    client.once('ready', done);
    client.once('error', done);
    client.once('close', done);
  });
}
