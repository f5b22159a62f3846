/**
 * The budget of audited writes of one account (docs/decisions/operations.md "A budget of audited
 * writes per account"): every route that writes an audit entry for the signed-in account takes one
 * from a count shared by all of them, AUDITED_WRITES_MAX in AUDITED_WRITES_WINDOW_MS (the window
 * starts at the first write). The take is one atomic increment before the handler runs, so
 * requests sent at once can't all pass a check made before any was written; a request that fails
 * (4xx, 5xx: nothing audited) gives its place back. Counts live behind CounterStore, in Redis with
 * several instances; when Redis can't be reached, this instance counts in its own memory meanwhile.
 */
import { AUDITED_WRITES_MAX, AUDITED_WRITES_WINDOW_MS, format, messages } from '@sitehall/contracts';
import { TooManyRequests } from './errors.js';
import { type CounterStore, MemoryCounterStore } from './login-throttle.js';

export function createAuditBudget(counters: CounterStore, local: CounterStore = new MemoryCounterStore()) {
  const keyOf = (accountId: number) => `audited-writes:${accountId}`;
  return {
    /**
     * Takes one audited write of the account's budget, or throws 429 past it (the refused hit
     * stays counted: the window still ends when it would, and nothing is written).
     */
    async take(accountId: number): Promise<void> {
      const key = keyOf(accountId);
      const { count, resetAt } = await counters
        .hit(key, AUDITED_WRITES_WINDOW_MS)
        .catch(() => local.hit(key, AUDITED_WRITES_WINDOW_MS));
      if (count <= AUDITED_WRITES_MAX) return;
      const waitMs = Math.max(1000, resetAt - Date.now());
      throw new TooManyRequests(
        format(messages.common.auditedWritesExceeded, {
          n: AUDITED_WRITES_MAX,
          window: AUDITED_WRITES_WINDOW_MS / 60_000,
          minutes: Math.max(1, Math.ceil(waitMs / 60_000)),
        }),
        waitMs / 1000,
      );
    },
    /** Gives back a write taken by a request that wrote nothing (it failed). */
    async giveBack(accountId: number): Promise<void> {
      const key = keyOf(accountId);
      await counters.release(key).catch(() => local.release(key));
    },
  };
}
export type AuditBudget = ReturnType<typeof createAuditBudget>;
