import { ConfigError } from '../domain/errors.js';
import type { BlobStore } from './blob-store.js';
import { LocalBlobStore } from './local-blob-store.js';
import type { S3StorageConfig } from './s3-blob-store.js';
import { isStoreOutage } from './s3-guard.js';

/** Where site files (blobs) live: DATA_DIR/blobs, or an S3-compatible bucket. */
export type StorageConfig = { kind: 'local' } | ({ kind: 's3' } & S3StorageConfig);

export {
  assertSha256,
  assertVariantName,
  BlobNotFound,
  type BlobStore,
  type ByteRange,
  isSha256Hex,
} from './blob-store.js';
export { LocalBlobStore, type LocalBlobStoreOptions } from './local-blob-store.js';
export { StorageUnavailable } from './s3-guard.js';

/**
 * The blob store the configuration asks for (STORAGE). The AWS SDK is loaded only for S3: it
 * would add a few hundred milliseconds to every start of the default install.
 *
 * A bucket that can't be reached (refused, a timeout, DNS, a 5xx) is an outage, not a mistake:
 * with `whenUnreachable: 'start'` (the server) the store is returned known to be down, and is used
 * once its HeadBucket answers, as PostgreSQL and Redis are (docs/decisions/faults.md "S3 outages").
 * Command-line tools keep the default and stop. A bucket that answers no (no such bucket, bad
 * credentials) stops either way, in plain words.
 */
export async function openBlobStore(
  config: { dataDir: string; storage: StorageConfig },
  opts: { whenUnreachable?: 'start' | 'stop' } = {},
): Promise<BlobStore> {
  if (config.storage.kind === 'local') return LocalBlobStore.inDataDir(config.dataDir);
  const { S3BlobStore } = await import('./s3-blob-store.js');
  const store = S3BlobStore.fromConfig(config.storage);
  // A wrong bucket, endpoint or key is said at start, in plain words, not at the first upload.
  try {
    await store.check();
  } catch (error) {
    if (opts.whenUnreachable === 'start' && isStoreOutage(error)) {
      store.guard.startDown();
      return store;
    }
    store.client.destroy();
    const { bucket, endpoint } = config.storage;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new ConfigError(
      `S3 storage: bucket "${bucket}" at ${endpoint ?? 'AWS'} cannot be used (${reason}). Check S3_ENDPOINT, S3_BUCKET and the access keys; the bucket must exist.`,
    );
  }
  return store;
}
