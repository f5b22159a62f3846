/**
 * Failed sign-ins are counted per (account, client address), per client address and per account over
 * a 15-minute window. Past the first two limits the next attempts answer 429 with Retry-After until
 * the window ends; the account-wide count only slows sign-ins down. An attempt takes its place in
 * the refusing counts before the password is verified (`reserve`, one atomic increment each), so
 * attempts sent at once can't all pass a check made before any of them failed. Counters live behind
 * CounterStore so several instances share them (Redis, cluster/redis-counter-store.ts). When the shared counters can't be
 * reached, the instance counts in its own memory meanwhile: sign-ins go on, still throttled.
 */
import { messages } from '@sitehall/contracts';
import { TooManyRequests } from './errors.js';

export interface CounterStore {
  /** Adds one to key within a window that starts at the first hit; returns the new count. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
  peek(key: string): Promise<{ count: number; resetAt: number } | null>;
  /** Takes one back from a count within its window (an attempt that was refused or succeeded). */
  release(key: string): Promise<void>;
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
  async release(key: string) {
    const c = this.#counters.get(key);
    if (c && c.resetAt > Date.now() && c.count > 0) c.count--;
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
 * `account` is a key the caller chooses for the thing under attack: `user:{id}:{password}` for an
 * existing account (so its username and its email share one budget; `{password}` names the
 * account's current password hash, so any new password — a change, an admin's reset, the
 * command-line `reset-password` while the server runs — starts every count of the account afresh
 * with no counter to find or clear), `login:{name}` for an unknown name, `password:{id}:{password}`
 * for current-password checks.
 *
 * With a client address (sign-in), failures are counted per (account, address), per address and
 * per account. The first two refuse (429): brute force from one address stays throttled. The
 * account-wide count only makes every sign-in of the account wait a little longer (up to
 * `delayMaxMs`), so nobody can lock an account's owner out from addresses the owner doesn't use
 * (docs/decisions/accounts.md "Accounts and sessions"). Without an address (a current-password check, made
 * with a session the account already has) the account's own count refuses, as before.
 */
/** A reserved sign-in attempt: how long it waits first, and what failing it would leave. */
export interface Reservation {
  delayMs: number;
  /**
   * Failures this account may still have from this address (or, without one, at all) after this
   * attempt, should it fail: 0 means a failure locks it out until `resetAt` (epoch ms).
   */
  attemptsLeft: number;
  resetAt: number;
}

export function createLoginThrottle(
  counters: CounterStore,
  limits: ThrottleLimits = THROTTLE,
  local: CounterStore = new MemoryCounterStore(),
) {
  // Shared counters that fail (Redis down or silent) fail open, but not wide open: failures are
  // counted in this instance's memory meanwhile, and a count made there still refuses sign-ins
  // after Redis is back, until its window ends (docs/decisions/faults.md "Redis outages").
  const store = {
    /** A shared hit counts on top of what this instance counted alone during an outage. */
    async hit(key: string, windowMs: number) {
      let shared: { count: number; resetAt: number };
      try {
        shared = await counters.hit(key, windowMs);
      } catch {
        return local.hit(key, windowMs);
      }
      const own = await local.peek(key);
      return own
        ? { count: shared.count + own.count, resetAt: Math.max(shared.resetAt, own.resetAt) }
        : shared;
    },
    async peek(key: string) {
      const own = await local.peek(key);
      const shared = await counters.peek(key).catch(() => null);
      return own && (!shared || own.count > shared.count) ? own : shared;
    },
    /** Where the hit went: the shared count, or this instance's while the shared one is away. */
    async release(key: string) {
      await counters.release(key).catch(() => local.release(key));
    },
    async reset(key: string) {
      await local.reset(key);
      await counters.reset(key).catch(() => {});
    },
  };
  const accountKey = (account: string) => `throttle:acct:${account}`;
  const pairKey = (account: string, ip: string) => `throttle:acct-ip:${account}:${ip}`;
  /** The counters that refuse, with their limits. */
  function refusing(account: string, ip: string | undefined): Array<[string, number]> {
    if (ip === undefined) return [[accountKey(account), limits.perAccount]];
    return [
      [pairKey(account, ip), limits.perAccount],
      [`throttle:ip:${ip}`, limits.perIp],
    ];
  }

  return {
    limits,
    /**
     * Reserves this attempt in the refusing counts before the password is verified, and throws 429
     * (with Retry-After, the reservation taken back) when it would be one too many: this account
     * from this address, or this address for any account. Returns how long the sign-in should wait
     * first because of the account's failures from everywhere (0 for most). Each reservation ends
     * with `failed`, `succeeded` or `cancelled`.
     */
    async reserve(
      account: string,
      ip?: string,
      message: string = messages.auth.loginThrottled,
    ): Promise<Reservation> {
      const taken: string[] = [];
      let mine: { count: number; resetAt: number } | undefined;
      for (const [key, limit] of refusing(account, ip)) {
        const c = await store.hit(key, limits.windowMs);
        taken.push(key);
        mine ??= c;
        if (c.count > limit) {
          for (const k of taken) await store.release(k);
          throw new TooManyRequests(message, (c.resetAt - Date.now()) / 1000);
        }
      }
      // What is left of this account's budget from here, should this attempt fail.
      const left = { attemptsLeft: limits.perAccount - (mine?.count ?? 0), resetAt: mine?.resetAt ?? 0 };
      if (ip === undefined) return { delayMs: 0, ...left };
      return {
        delayMs: accountDelayMs((await store.peek(accountKey(account)))?.count ?? 0, limits),
        ...left,
      };
    },
    /** The reserved attempt was never verified (the hashing queue was full): it is taken back. */
    async cancelled(account: string, ip?: string): Promise<void> {
      for (const [key] of refusing(account, ip)) await store.release(key);
    },
    /** The reserved attempt failed: it stays counted, and the account-wide count grows. */
    async failed(account: string, ip?: string): Promise<void> {
      if (ip !== undefined) await store.hit(accountKey(account), limits.windowMs);
    },
    /**
     * A success clears the account's counts, from this address and from everywhere (a typo now
     * and then never locks anyone out or slows them down); the address's own count keeps its
     * earlier failures (one good password doesn't excuse the others) but not this attempt.
     */
    async succeeded(account: string, ip?: string): Promise<void> {
      if (ip !== undefined) {
        await store.reset(pairKey(account, ip));
        await store.release(`throttle:ip:${ip}`);
      }
      await store.reset(accountKey(account));
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
