/**
 * Failed sign-ins are counted per (account, client address), per client address and per account over
 * a 15-minute window. Past the first two limits the next attempts answer 429 with Retry-After until
 * the window ends; the account-wide count only slows sign-ins down. Counters live behind
 * CounterStore so several instances share them (Redis, cluster/redis-counter-store.ts). When the shared counters can't be
 * reached, the instance counts in its own memory meanwhile: sign-ins go on, still throttled.
 */
import { messages } from '@sitehall/contracts';
import { TooManyRequests } from '../domain/errors.js';

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
  /**
   * Failures allowed per account from one client address (or, for current-password checks, per
   * account) within the window; past it that address is refused for the account.
   */
  perAccount: number;
  /** Failures allowed per client address within the window, whatever the accounts. */
  perIp: number;
  /**
   * Failures of an account from all addresses together past which every sign-in of it waits
   * (never refused): `delayBaseMs` at this count, doubling with each further failure.
   */
  delayAfter: number;
  delayBaseMs: number;
  /** The longest such wait. */
  delayMaxMs: number;
}

export const THROTTLE: ThrottleLimits = {
  windowMs: 15 * 60_000,
  perAccount: 5,
  perIp: 30,
  delayAfter: 5,
  delayBaseMs: 250,
  delayMaxMs: 3_000,
};

/** How long a sign-in of an account that failed `failures` times (from anywhere) waits. */
export function accountDelayMs(failures: number, limits: ThrottleLimits = THROTTLE): number {
  if (failures < limits.delayAfter) return 0;
  return Math.min(limits.delayMaxMs, limits.delayBaseMs * 2 ** (failures - limits.delayAfter));
}

/**
 * `account` is a key the caller chooses for the thing under attack: `user:{id}` for an existing
 * account (so its username and its email share one budget), `login:{name}` for an unknown name,
 * `password:{id}` for current-password checks.
 *
 * With a client address (sign-in), failures are counted per (account, address), per address and
 * per account. The first two refuse (429): brute force from one address stays throttled. The
 * account-wide count only makes every sign-in of the account wait a little longer (up to
 * `delayMaxMs`), so nobody can lock an account's owner out from addresses the owner doesn't use
 * (docs/decisions.md "Accounts and sessions"). Without an address (a current-password check, made
 * with a session the account already has) the account's own count refuses, as before.
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
  const accountKey = (account: string) => `throttle:acct:${account}`;
  const resetsKey = (account: string) => `throttle:resets:${account}`;
  /**
   * The (account, address) counter. Its key names how often the account's password was reset
   * within the window, so a reset starts every address afresh without finding their keys.
   */
  async function pairKey(account: string, ip: string): Promise<string> {
    const resets = (await store.peek(resetsKey(account)))?.count ?? 0;
    return `throttle:acct-ip:${account}:${resets}:${ip}`;
  }
  /** The counters that refuse, with their limits. */
  async function refusing(account: string, ip: string | undefined): Promise<Array<[string, number]>> {
    if (ip === undefined) return [[accountKey(account), limits.perAccount]];
    return [
      [await pairKey(account, ip), limits.perAccount],
      [`throttle:ip:${ip}`, limits.perIp],
    ];
  }

  return {
    /**
     * Throws 429 (with Retry-After) when this account has failed too often from this address, or
     * this address too often for any account. Returns how long the sign-in should wait first
     * because of the account's failures from everywhere (0 for most).
     */
    async check(
      account: string,
      ip?: string,
      message: string = messages.auth.loginThrottled,
    ): Promise<{ delayMs: number }> {
      for (const [key, limit] of await refusing(account, ip)) {
        const c = await store.peek(key);
        if (c && c.count >= limit) throw new TooManyRequests(message, (c.resetAt - Date.now()) / 1000);
      }
      if (ip === undefined) return { delayMs: 0 };
      return { delayMs: accountDelayMs((await store.peek(accountKey(account)))?.count ?? 0, limits) };
    },
    async failed(account: string, ip?: string): Promise<void> {
      const keys = (await refusing(account, ip)).map(([key]) => key);
      if (ip !== undefined) keys.push(accountKey(account));
      for (const key of keys) await store.hit(key, limits.windowMs);
    },
    /**
     * A success clears the account's counts, from this address and from everywhere (a typo now
     * and then never locks anyone out or slows them down); not the address's own count (one good
     * password doesn't excuse the others).
     */
    async succeeded(account: string, ip?: string): Promise<void> {
      if (ip !== undefined) await store.reset(await pairKey(account, ip));
      await store.reset(accountKey(account));
    },
    /** A new password (an administrator's reset): earlier failures of the account no longer count. */
    async cleared(account: string): Promise<void> {
      await store.hit(resetsKey(account), limits.windowMs);
      await store.reset(accountKey(account));
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
