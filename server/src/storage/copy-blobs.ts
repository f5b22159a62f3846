/**
 * Copies every blob (and its compressed variants) from one store to another: the move from the
 * local data folder to an S3-compatible bucket (npm run migrate-storage). Streamed, a few blobs at
 * a time; a blob already in the target with the right size is skipped, so an interrupted run is
 * resumed by running it again. Each copy goes through the target's put(), which hashes the bytes
 * as they pass: a blob that arrives with another hash or size than it left with is an error.
 */
import type { BlobStore } from './blob-store.js';

/** The variants the server makes (serve/site-file-source.ts): brotli and gzip bodies. */
export const VARIANT_NAMES = ['br', 'gz'] as const;

export interface CopyProgress {
  total: number;
  done: number;
  copied: number;
  skipped: number;
  variants: number;
  bytes: number;
}

export interface CopyBlobsOptions {
  /** Blobs copied at once (default 4). */
  concurrency?: number;
  onProgress?: (progress: CopyProgress) => void;
}

export class BlobCopyError extends Error {}

export async function copyBlobs(
  source: BlobStore,
  target: BlobStore,
  opts: CopyBlobsOptions = {},
): Promise<CopyProgress> {
  const hashes: string[] = [];
  for await (const hash of source.list()) hashes.push(hash);
  const progress: CopyProgress = {
    total: hashes.length,
    done: 0,
    copied: 0,
    skipped: 0,
    variants: 0,
    bytes: 0,
  };
  let next = 0;
  const worker = async () => {
    while (next < hashes.length) {
      const hash = hashes[next++]!;
      await copyOne(source, target, hash, progress);
      progress.done++;
      opts.onProgress?.(progress);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  return progress;
}

async function copyOne(source: BlobStore, target: BlobStore, hash: string, progress: CopyProgress) {
  const want = await source.stat(hash);
  if (!want) return; // deleted since it was listed
  const have = await target.stat(hash);
  if (have?.size === want.size) {
    progress.skipped++;
  } else {
    const stored = await target.put(await source.read(hash));
    if (stored.sha256 !== hash || stored.size !== want.size) {
      throw new BlobCopyError(
        `Blob ${hash} (${want.size} bytes) arrived as ${stored.sha256} (${stored.size} bytes): the source file is damaged`,
      );
    }
    progress.copied++;
    progress.bytes += stored.size;
  }
  for (const variant of VARIANT_NAMES) {
    const from = await source.statVariant(hash, variant);
    if (!from) continue;
    const to = await target.statVariant(hash, variant);
    if (to?.size === from.size) continue;
    const body = await source.readVariant(hash, variant);
    if (!body) continue;
    await target.putVariant(hash, variant, body);
    const written = await target.statVariant(hash, variant);
    if (written?.size !== from.size) {
      throw new BlobCopyError(
        `Variant ${hash}.${variant} arrived with ${written?.size} of ${from.size} bytes`,
      );
    }
    progress.variants++;
    progress.bytes += from.size;
  }
}
