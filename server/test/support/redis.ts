/**
 * The machine's Redis for tests (TEST_REDIS_URL, default 127.0.0.1:6379), each test under its own
 * key prefix so parallel runs never see each other's counters. Tests that need Redis skip when it
 * is not reachable, except under CI=true, where a missing Redis is a failure, never a silent skip.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniqueRedisPrefix(): string {
  return `sitehall-test:${randomBytes(6).toString('hex')}:`;
}

async function ping(): Promise<boolean> {
  const r = new Redis(testRedisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** Whether Redis tests run: true when reachable; throws under CI when it is not. */
export async function redisReachable(): Promise<boolean> {
  if (await ping()) return true;
  if (process.env.CI === 'true') throw new Error(`Redis is not reachable at ${testRedisUrl} (CI=true)`);
  return false;
}

/** Deletes every key under a test's prefix. */
export async function dropRedisPrefix(prefix: string): Promise<void> {
  const r = new Redis(testRedisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}
