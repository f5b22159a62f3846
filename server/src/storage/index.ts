import type { Config } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { LocalBlobStore } from './local-blob-store.js';

export {
  assertSha256,
  assertVariantName,
  BlobNotFound,
  type BlobStore,
  type ByteRange,
  isSha256Hex,
} from './blob-store.js';
export { LocalBlobStore, type LocalBlobStoreOptions } from './local-blob-store.js';

/**
 * The blob store the configuration asks for (STORAGE). The AWS SDK is loaded only for S3: it
 * would add a few hundred milliseconds to every start of the default install.
 */
export async function openBlobStore(config: Config): Promise<BlobStore> {
  if (config.storage.kind === 'local') return LocalBlobStore.inDataDir(config.dataDir);
  const { S3BlobStore } = await import('./s3-blob-store.js');
  return S3BlobStore.fromConfig(config.storage);
}
