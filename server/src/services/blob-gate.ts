/**
 * Keeps "store blobs + commit rows" and "find unreferenced blobs + delete them" from removing a
 * blob an upload is about to reference. In this process a delete waits for the uploads storing
 * before it and they for it (uploads don't wait for each other); across
 * instances an upload first leases its hashes (repositories/leases.ts) and deleters skip leased
 * hashes, checking under a lock that no lease is being written meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { type DB, now } from '../db/database.js';
import type { LeasesRepository } from '../repositories/leases.js';
import type { BlobStore } from '../storage/index.js';

/** Hashes checked and deleted per lock. */
const DELETE_BATCH = 500;

export class BlobGate {
  /** The last exclusive work (a delete), and the shared ones (uploads storing) begun since. */
  #exclusive: Promise<unknown> = Promise.resolve();
  readonly #sharedSince = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: {
      leases: LeasesRepository;
      store: BlobStore;
      unreferenced: (hashes: string[], trx: DB) => Promise<string[]>;
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
   * held another's one-page site for seconds: docs/decisions.md "One account can't stall
   * another's uploads"); a delete still waits for every upload before it, and they for it.
   */
  shared<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#exclusive.then(work, work);
    const settled = result.catch(() => undefined);
    this.#sharedSince.add(settled);
    void settled.then(() => this.#sharedSince.delete(settled));
    return result;
  }

  /** Stores an upload's blobs and commits its rows (both in `work`), its hashes leased meanwhile. */
  async storing<T>(hashes: string[], work: () => Promise<T>): Promise<T> {
    const uploadId = this.deps.owner ? `${this.deps.owner}/${randomUUID()}` : randomUUID();
    await this.deps.leases.leaseBlobs(uploadId, hashes, now());
    try {
      return await this.shared(work);
    } finally {
      // Once the rows are committed they protect the blobs; a failed release only leaves a lease
      // that the sweep drops when it is stale.
      await this.deps.leases.releaseBlobs(uploadId).catch(() => undefined);
    }
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
