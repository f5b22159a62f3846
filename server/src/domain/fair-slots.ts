/**
 * Slots for heavy work (an upload's extraction, its content check), shared fairly between the
 * accounts that ask (docs/decisions/review.md "One account can't stall another's uploads"):
 *
 * - at most `capacity` jobs run at once, and one account at most `perAccount` of them;
 * - when every slot is busy, an account with nothing running may still start one, up to
 *   `capacity + spare` in all: a newcomer doesn't wait for the jobs of accounts already served;
 * - waiting jobs start round robin between accounts (each account's own in the order they came),
 *   so an account that queued ten jobs delays another's by at most one of them.
 */
import os from 'node:os';

/** Who a job is for: an account's id, or a name for work done for no account (an admin's re-check). */
export type SlotOwner = number | string;

export interface FairSlotsOptions {
  capacity: number;
  perAccount: number;
  spare: number;
}

interface Waiter {
  start(): void;
}

/**
 * The slots of one kind of heavy work on this machine: one job per CPU, one account at most half of
 * them (at least one), and as many again for accounts with nothing running, so that accounts
 * holding the CPUs with long jobs delay a newcomer by their share of the CPU, not by their jobs'
 * length (docs/decisions.md). The spare slots double the worst-case memory of the workers.
 */
export function heavyJobSlots(cpus = os.availableParallelism()): FairSlotsOptions {
  const capacity = Math.max(1, cpus);
  return { capacity, perAccount: Math.max(1, Math.floor(capacity / 2)), spare: capacity };
}

export class FairSlots {
  private running = 0;
  private readonly runningOf = new Map<SlotOwner, number>();
  /** Accounts with jobs waiting, in round-robin order; each with its own queue. */
  private readonly waiting = new Map<SlotOwner, Waiter[]>();

  constructor(private readonly opts: FairSlotsOptions) {}

  /** Resolves with the slot's release (call it once) when the job may start; rejects on abort. */
  acquire(owner: SlotOwner, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.take(owner);
          resolve(this.releaser(owner));
        },
      };
      const onAbort = () => {
        this.forget(owner, waiter);
        reject(signal?.reason);
      };
      if (!this.waiting.has(owner) && this.mayStart(owner)) {
        waiter.start();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.waiting.get(owner);
      if (queue) queue.push(waiter);
      else this.waiting.set(owner, [waiter]);
    });
  }

  /** Jobs running and waiting, for tests and metrics. */
  stats(): { running: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { running: this.running, waiting };
  }

  private mayStart(owner: SlotOwner): boolean {
    const mine = this.runningOf.get(owner) ?? 0;
    if (mine >= this.opts.perAccount) return false;
    if (this.running < this.opts.capacity) return true;
    return mine === 0 && this.running < this.opts.capacity + this.opts.spare;
  }

  private take(owner: SlotOwner) {
    this.running++;
    this.runningOf.set(owner, (this.runningOf.get(owner) ?? 0) + 1);
  }

  private releaser(owner: SlotOwner): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const mine = (this.runningOf.get(owner) ?? 1) - 1;
      if (mine > 0) this.runningOf.set(owner, mine);
      else this.runningOf.delete(owner);
      this.startWaiting();
    };
  }

  /** Starts what may start, one job per account in turn; a served account goes to the back. */
  private startWaiting() {
    for (let progress = true; progress; ) {
      progress = false;
      for (const [owner, queue] of this.waiting) {
        if (!this.mayStart(owner)) continue;
        const next = queue.shift()!;
        this.waiting.delete(owner);
        if (queue.length > 0) this.waiting.set(owner, queue);
        next.start();
        progress = true;
        break;
      }
    }
  }

  private forget(owner: SlotOwner, waiter: Waiter) {
    const queue = this.waiting.get(owner);
    if (!queue) return;
    const at = queue.indexOf(waiter);
    if (at >= 0) queue.splice(at, 1);
    if (queue.length === 0) this.waiting.delete(owner);
  }
}

/**
 * The one pool an upload's heavy work takes its slots from, extraction and content check alike:
 * two pools let an account with two uploads in flight run a thread in each, so two such accounts
 * held four threads on two CPUs and a newcomer's work, and the main thread serving everyone, got a
 * fifth of the machine (docs/decisions/review.md "One account can't stall another's uploads").
 */
export const uploadWorkSlots = new FairSlots(heavyJobSlots());
