/**
 * Failed sign-ins are counted per account and per IP over a 15-minute window. Past the limit the
 * next attempts answer 429 with Retry-After until the window ends. Counters live behind
 * CounterStore so several instances can share them (Redis). When the shared counters can't be
 * reached, the instance counts in its own memory meanwhile: sign-ins go on, still throttled.
 */
import { messages } from '@sitehall/contracts';
import { TooManyRequests } from '../http/errors.js';

export interface CounterStore {
  /** Adds one to key within a window that starts at the first hit; returns the new count. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
  peek(key: string): Promise<{ count: number; resetAt: number } | null>;
  reset(key: string): Promise<void>;
}

export class MemoryCounterStore implements CounterStore {
  readonly #counters = new Map<string, { count: number; resetAt: number }>();

  async hit(key: string, windowMs: number) {
    const t = Date.now();
    let c = this.#counters.get(key);
    if (!c || c.resetAt <= t) {
      c = { count: 0, resetAt: t + windowMs };
      this.#counters.set(key, c);
      if (this.#counters.size > 100_000) this.#sweep(t);
    }
    c.count++;
    return { ...c };
  }
  async peek(key: string) {
    const c = this.#counters.get(key);
    return c && c.resetAt > Date.now() ? { ...c } : null;
  }
  async reset(key: string) {
    this.#counters.delete(key);
  }
  #sweep(t: number) {
    for (const [k, c] of this.#counters) if (c.resetAt <= t) this.#counters.delete(k);
  }
}

export interface ThrottleLimits {
  windowMs: number;
  /** Failures allowed per account (or per unknown login name) within the window. */
  perAccount: number;
  /** Failures allowed per client IP within the window. */
  perIp: number;
}

export const THROTTLE: ThrottleLimits = { windowMs: 15 * 60_000, perAccount: 5, perIp: 30 };

/**
 * `account` is a key the caller chooses for the thing under attack: `user:{id}` for an existing
 * account (so its username and its email share one budget), `login:{name}` for an unknown name,
 * `password:{id}` for current-password checks.
 */
export function createLoginThrottle(
  counters: CounterStore,
  limits: ThrottleLimits = THROTTLE,
  local: CounterStore = new MemoryCounterStore(),
) {
  // Shared counters that fail (Redis down or silent) fail open, but not wide open: failures are
  // counted in this instance's memory meanwhile, and a count made there still refuses sign-ins
  // after Redis is back, until its window ends (docs/decisions.md "Redis outages").
  const store = {
    async hit(key: string, windowMs: number) {
      try {
        return await counters.hit(key, windowMs);
      } catch {
        return local.hit(key, windowMs);
      }
    },
    async peek(key: string) {
      const own = await local.peek(key);
      const shared = await counters.peek(key).catch(() => null);
      return own && (!shared || own.count > shared.count) ? own : shared;
    },
    async reset(key: string) {
      await local.reset(key);
      await counters.reset(key).catch(() => {});
    },
  };
  const keys = (account: string, ip?: string) =>
    [
      [`throttle:acct:${account}`, limits.perAccount],
      ...(ip === undefined ? [] : [[`throttle:ip:${ip}`, limits.perIp]]),
    ] as Array<[string, number]>;
  return {
    /** Throws 429 (with Retry-After) when this account or this IP has failed too often. */
    async check(account: string, ip?: string, message: string = messages.auth.loginThrottled): Promise<void> {
      for (const [key, limit] of keys(account, ip)) {
        const c = await store.peek(key);
        if (c && c.count >= limit) throw new TooManyRequests(message, (c.resetAt - Date.now()) / 1000);
      }
    },
    async failed(account: string, ip?: string): Promise<void> {
      for (const [key] of keys(account, ip)) await store.hit(key, limits.windowMs);
    },
    /** A success clears the account's count (not the IP's: one good password doesn't excuse others). */
    async succeeded(account: string): Promise<void> {
      await store.reset(`throttle:acct:${account}`);
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
