/**
 * Keeps "store blobs + commit rows" and "find unreferenced blobs + delete them" from removing a
 * blob an upload is about to reference. In this process a delete waits for the uploads storing
 * before it and they for it (uploads don't wait for each other); across
 * instances an upload first leases its hashes (repositories/leases.ts) and deleters skip leased
 * hashes, checking under a lock that no lease is being written meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { BlobStore } from './blob-store.js';

/**
 * The blob leases table as the gate uses it (repositories/leases.ts is one): `Trx` is the
 * transaction a delete runs in, handed back to `leased` and to the gate's `unreferenced`.
 */
export interface BlobLeases<Trx> {
  leaseBlobs(uploadId: string, hashes: string[], at: string): Promise<void>;
  releaseBlobs(uploadId: string): Promise<void>;
  dropBlobLeasesOf(uploadIds: string[]): Promise<number>;
  /** Which of the hashes some upload has leased, read in the delete's transaction. */
  leased(hashes: string[], trx: NoInfer<Trx>): Promise<Set<string>>;
  /** Runs a delete so that no lease is written meanwhile (a lock on PostgreSQL). */
  deletingBlobs<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
}

const now = () => new Date().toISOString();

/** Hashes checked and deleted per lock. */
const DELETE_BATCH = 500;
/** Between two tries of the releases that failed: doubling from the first, up to the last. */
export const RELEASE_RETRY_FIRST_MS = 500;
export const RELEASE_RETRY_MAX_MS = 15_000;

export class BlobGate<Trx> {
  /** The last exclusive work (a delete), and the shared ones (uploads storing) begun since. */
  #exclusive: Promise<unknown> = Promise.resolve();
  readonly #sharedSince = new Set<Promise<unknown>>();
  /** Leases whose release failed (the database away), tried again until it works. */
  readonly #unreleased = new Set<string>();
  #retryMs = RELEASE_RETRY_FIRST_MS;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(
    private readonly deps: {
      leases: BlobLeases<Trx>;
      store: BlobStore;
      unreferenced: (hashes: string[], trx: NoInfer<Trx>) => Promise<string[]>;
      /** This process's instance id: its leases are named after it, so a sweep can tell it died. */
      owner?: string;
    },
  ) {}

  /** Work that must not overlap any other (finding and deleting unused blobs). */
  run<T>(work: () => Promise<T>): Promise<T> {
    const before = Promise.all([this.#exclusive, ...this.#sharedSince]);
    const result = before.then(work, work);
    this.#exclusive = result.catch(() => undefined);
    this.#sharedSince.clear();
    return result;
  }

  /**
   * Work that may overlap other shared work but no exclusive one: uploads storing their blobs and
   * committing their rows. Uploads don't wait for each other's blobs (one account's 50 MB upload
   * held another's one-page site for seconds: docs/decisions/review.md "One account can't stall
   * another's uploads"); a delete still waits for every upload before it, and they for it.
   */
  shared<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#exclusive.then(work, work);
    const settled = result.catch(() => undefined);
    this.#sharedSince.add(settled);
    void settled.then(() => this.#sharedSince.delete(settled));
    return result;
  }

  /**
   * Leases hashes under a new id of this instance until `release(id)`: contents an upload counts
   * on finding in the store (a re-upload's unchanged files, services/uploads.ts).
   */
  async lease(hashes: string[]): Promise<string> {
    const id = this.deps.owner ? `${this.deps.owner}/${randomUUID()}` : randomUUID();
    try {
      await this.deps.leases.leaseBlobs(id, hashes, now());
    } catch (err) {
      void this.release(id);
      throw err;
    }
    return id;
  }

  /** Stores an upload's blobs and commits its rows (both in `work`), its hashes leased meanwhile. */
  async storing<T>(hashes: string[], work: () => Promise<T>): Promise<T> {
    const uploadId = this.deps.owner ? `${this.deps.owner}/${randomUUID()}` : randomUUID();
    try {
      await this.deps.leases.leaseBlobs(uploadId, hashes, now());
    } catch (err) {
      // A commit whose answer was lost (the connection cut) may have written the lease after all.
      void this.release(uploadId);
      throw err;
    }
    try {
      return await this.shared(work);
    } finally {
      // Once the rows are committed they protect the blobs; the release never fails the answer.
      await this.release(uploadId);
    }
  }

  /**
   * Drops a lease (an upload's, a deploy's). One that fails (the database away) is kept in memory
   * and tried again with backoff until the database takes it, so its blobs are not held for the
   * sweep's hour; the caller is never failed nor held for it. A restart forgets them: the sweep
   * still drops a dead instance's leases, and any lease after an hour (docs/decisions/faults.md "Failed
   * lease releases are retried").
   */
  async release(uploadId: string): Promise<void> {
    try {
      await this.deps.leases.releaseBlobs(uploadId);
    } catch {
      if (this.#closed) return;
      this.#unreleased.add(uploadId);
      this.#scheduleRetry();
    }
  }

  /** Leases whose release failed and waits for its next try (tests, metrics). */
  get unreleased(): number {
    return this.#unreleased.size;
  }

  /** One last try of the failed releases, and no more retries (the app is closing). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    if (this.#unreleased.size > 0)
      await this.deps.leases.dropBlobLeasesOf([...this.#unreleased]).catch(() => undefined);
    this.#unreleased.clear();
  }

  #scheduleRetry(): void {
    if (this.#retry || this.#closed) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, RELEASE_RETRY_MAX_MS);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      const ids = [...this.#unreleased];
      this.deps.leases.dropBlobLeasesOf(ids).then(
        () => {
          // Those added meanwhile stay for the next try.
          for (const id of ids) this.#unreleased.delete(id);
          this.#retryMs = RELEASE_RETRY_FIRST_MS;
          if (this.#unreleased.size > 0) this.#scheduleRetry();
        },
        () => this.#scheduleRetry(),
      );
    }, wait);
    this.#retry.unref();
  }

  /**
   * Deletes those of the hashes that no deployment references and no upload has leased. With
   * onDeleted, each deleted blob's size is measured first (the sweep reports bytes reclaimed).
   */
  async deleteUnused(hashes: Iterable<string>, onDeleted?: (bytes: number) => void): Promise<number> {
    const all = [...new Set(hashes)];
    const { leases, store, unreferenced } = this.deps;
    let deleted = 0;
    for (let i = 0; i < all.length; i += DELETE_BATCH) {
      const batch = all.slice(i, i + DELETE_BATCH);
      deleted += await this.run(() =>
        leases.deletingBlobs(async (trx) => {
          const leased = await leases.leased(batch, trx);
          const gone = (await unreferenced(batch, trx)).filter((h) => !leased.has(h));
          for (const h of gone) {
            const size = onDeleted ? ((await store.stat(h))?.size ?? 0) : 0;
            await store.delete(h);
            onDeleted?.(size);
          }
          return gone.length;
        }),
      );
    }
    return deleted;
  }
}
