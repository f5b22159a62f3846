/**
 * Login-throttle counters in Redis, so failed sign-ins on every instance count against one budget.
 * Same semantics as MemoryCounterStore: the window starts at the first hit and the count is kept
 * until it ends. A sign-in reserves its place with one hit before its password is verified, so
 * the hit must be atomic across instances (INCR is). The increment and the expiry are one Lua script, so no hit can leave a counter
 * without an expiry (INCR then a failed PEXPIRE would lock an account forever).
 */
import type { Redis } from 'ioredis';
import type { CounterStore } from '../domain/login-throttle.js';

/**
 * A key in its last millisecond (PTTL 0: Redis keeps it until the clock passes its expiry) has
 * ended for PEEK, so it has for HIT too: it starts a new window, as MemoryCounterStore's
 * `resetAt <= now` does. Without this a peek, then a hit in the same millisecond, saw "no count"
 * and then counted on top of the old one (seen once in a loaded CI run).
 */
const HIT = `
if redis.call('PTTL', KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) end
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

const PEEK = `
local count = redis.call('GET', KEYS[1])
if not count then return nil end
return {tonumber(count), redis.call('PTTL', KEYS[1])}
`;

/** One back, within the window only (not in its last millisecond): a missing key stays missing, a count never goes below 0. */
const RELEASE = `
local count = redis.call('GET', KEYS[1])
if count and tonumber(count) > 0 and redis.call('PTTL', KEYS[1]) ~= 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

type Scripted = Redis & {
  sitehallCounterHit(key: string, windowMs: number): Promise<[number, number]>;
  sitehallCounterPeek(key: string): Promise<[number, number] | null>;
  sitehallCounterRelease(key: string): Promise<number>;
};

export class RedisCounterStore implements CounterStore {
  readonly #redis: Scripted;

  constructor(redis: Redis) {
    const r = redis as Scripted;
    // defineCommand loads the script once (EVALSHA) and applies the client's key prefix to KEYS.
    if (!r.sitehallCounterHit) r.defineCommand('sitehallCounterHit', { numberOfKeys: 1, lua: HIT });
    if (!r.sitehallCounterPeek) r.defineCommand('sitehallCounterPeek', { numberOfKeys: 1, lua: PEEK });
    if (!r.sitehallCounterRelease)
      r.defineCommand('sitehallCounterRelease', { numberOfKeys: 1, lua: RELEASE });
    this.#redis = r;
  }

  async hit(key: string, windowMs: number) {
    const [count, ttl] = await this.#redis.sitehallCounterHit(key, windowMs);
    return { count, resetAt: Date.now() + ttl };
  }

  async peek(key: string) {
    const r = await this.#redis.sitehallCounterPeek(key);
    if (!r || r[1] <= 0) return null;
    return { count: r[0], resetAt: Date.now() + r[1] };
  }

  async release(key: string) {
    await this.#redis.sitehallCounterRelease(key);
  }

  async reset(key: string) {
    await this.#redis.del(key);
  }
}
