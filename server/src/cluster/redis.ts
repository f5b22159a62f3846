/**
 * The one Redis connection an instance shares between its parts (rate limits, login throttle,
 * readiness), plus a second one for pub/sub, which Redis reserves for subscribing. Only built when
 * REDIS_URL is set: without it every counter and cache stays in the process, as in a single
 * install.
 */
import { Redis } from 'ioredis';
import type { Config } from '../config.js';

export function createRedis(config: Pick<Config, 'redisUrl' | 'redisPrefix'>): Redis | undefined {
  if (!config.redisUrl) return undefined;
  return new Redis(config.redisUrl, {
    keyPrefix: config.redisPrefix,
    // A request waits for a reconnect rather than failing at once, but not forever.
    maxRetriesPerRequest: 3,
    lazyConnect: false,
  });
}
