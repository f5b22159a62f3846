/**
 * Who has viewed which site lately: a page view counts once per (client address, User-Agent,
 * project) per 30 minutes, so scripted reloads can't move the popular sort (docs/decisions/serving.md
 * "Serving and showcase"). One instance remembers visitors in a bounded map; with REDIS_URL the
 * instances share them through `SET key 1 NX EX`, batched per event-loop turn, and a view whose
 * check fails (Redis down) is counted: a lost dedupe costs a view too many, never a view.
 *
 * Only page views come here (assets never do), and a visitor is a 53-bit hash of the three parts,
 * not a string kept per visitor, so the map's memory per visitor is a few dozen bytes.
 */
import type { Redis } from 'ioredis';

export const VISITOR_WINDOW_MS = 30 * 60_000;
/** Visitors one instance remembers (≈6 MB); past it the oldest are forgotten first. */
export const MAX_REMEMBERED_VISITORS = 100_000;

let h1 = 0;
let h2 = 0;
function mix(text: string): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  // A separator, so ("ab", "c") and ("a", "bc") differ.
  h1 = Math.imul(h1 ^ 0x1f, 2654435761);
  h2 = Math.imul(h2 ^ 0x1f, 1597334677);
}

/** cyrb53 over the project id, the client address and the User-Agent. */
export function visitorHash(projectId: number, client: string, userAgent: string): number {
  h1 = 0xdeadbeef ^ projectId;
  h2 = 0x41c6ce57 ^ projectId;
  mix(client);
  mix(userAgent);
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Visitors seen by this instance: hash → when the visit stops counting as recent (epoch ms). */
export class RecentVisitors {
  readonly #until = new Map<number, number>();

  constructor(
    private readonly windowMs = VISITOR_WINDOW_MS,
    private readonly max = MAX_REMEMBERED_VISITORS,
  ) {}

  /** True the first time a visitor is seen within the window (and remembers it). */
  firstVisit(visitor: number, now: number): boolean {
    const until = this.#until.get(visitor);
    if (until !== undefined && until > now) return false;
    // Re-inserted at the end, so the map stays in the order the visits expire.
    if (until !== undefined) this.#until.delete(visitor);
    this.#until.set(visitor, now + this.windowMs);
    if (this.#until.size > this.max) {
      // The oldest tenth at once: a Map walks past its deleted entries from the start, so dropping
      // one per visit would cost more each time until the Map is rebuilt.
      let drop = Math.max(1, Math.floor(this.max / 10));
      for (const oldest of this.#until.keys()) {
        this.#until.delete(oldest);
        if (--drop === 0) break;
      }
    }
    return true;
  }

  get size(): number {
    return this.#until.size;
  }
}

/**
 * The instances' shared memory of visitors (REDIS_URL). `check` answers through `onFirst` once Redis
 * has: the checks of one event-loop turn go in one pipeline.
 */
export class SharedVisitors {
  #batch: Array<{ key: string; onFirst: () => void }> = [];
  #inFlight = new Set<Promise<void>>();

  constructor(
    private readonly redis: Redis,
    private readonly windowMs = VISITOR_WINDOW_MS,
  ) {}

  check(projectId: number, visitor: number, onFirst: () => void): void {
    if (this.#batch.length === 0) setImmediate(() => this.#send());
    this.#batch.push({ key: `views:seen:${projectId}:${visitor.toString(36)}`, onFirst });
  }

  /** Resolves once every check asked so far has been answered (and counted). */
  async settled(): Promise<void> {
    if (this.#batch.length > 0) this.#send();
    await Promise.all([...this.#inFlight]);
  }

  #send(): void {
    const batch = this.#batch;
    if (batch.length === 0) return;
    this.#batch = [];
    const pipeline = this.redis.pipeline();
    const seconds = Math.ceil(this.windowMs / 1000);
    for (const { key } of batch) pipeline.set(key, '1', 'EX', seconds, 'NX');
    const done = pipeline
      .exec()
      .then(
        (results) => {
          batch.forEach(({ onFirst }, i) => {
            const [err, reply] = results?.[i] ?? [new Error('no reply'), null];
            // 'OK': the key was new. null: someone viewed it within the window. An error: counted.
            if (err || reply === 'OK') onFirst();
          });
        },
        () => {
          for (const { onFirst } of batch) onFirst();
        },
      )
      .finally(() => this.#inFlight.delete(done));
    this.#inFlight.add(done);
  }
}
