/**
 * Work one account may have under way at once on this instance (zip downloads, uploads): each holds
 * resources every account shares (zlib's threads, the ingest and check workers, staging disk), so
 * one account's many in parallel would hold up everyone's (docs/security.md).
 */
import { TooManyRequests } from './errors.js';

export class PerAccountInFlight {
  private readonly running = new Map<number, number>();

  constructor(
    readonly max: number,
    /** The 429's message, given the limit. */
    private readonly refusal: (max: number) => string,
    private readonly retryAfterSeconds = 5,
  ) {}

  /** Counts one more for the account, or refuses with 429; the returned end may be called more than once. */
  begin(accountId: number): () => void {
    const n = this.running.get(accountId) ?? 0;
    if (n >= this.max) throw new TooManyRequests(this.refusal(this.max), this.retryAfterSeconds);
    this.running.set(accountId, n + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.running.get(accountId) ?? 1) - 1;
      if (left > 0) this.running.set(accountId, left);
      else this.running.delete(accountId);
    };
  }
}
