export {
  assertSha256,
  assertVariantName,
  BlobNotFound,
  type BlobStore,
  type ByteRange,
  isSha256Hex,
} from './blob-store.js';
export { LocalBlobStore, type LocalBlobStoreOptions } from './local-blob-store.js';
