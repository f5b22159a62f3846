/**
 * BlobStore on S3-compatible object storage (AWS S3, MinIO, Ceph, R2...). Keys, under an optional
 * prefix:
 *   blobs/<aa>/<hash>        the blobs (aa = the hash's first two hex digits)
 *   variants/<hash>.<name>   compressed copies, outside blobs/ so listing blobs never meets them
 *   tmp/<time>-<random>      put() streams in progress, before their hash is known
 * An S3 object only becomes visible when its upload completes (PutObject, or the last call of a
 * multipart upload), so a failed or interrupted write never shows under any key: the temp key is
 * needed only because put() learns the hash at the end. Such a put then copies the temp object to
 * its final key server-side (CopyObject, up to 5 GiB) and deletes it. Bigger objects, beyond
 * CopyObject's limit, are streamed back in through a new upload instead of a multipart copy:
 * UploadPartCopy is not offered by every S3-compatible server (s3rver among them), and SiteHall's
 * upload limit keeps files far below 5 GiB anyway. See docs/decisions/storage.md "S3-compatible storage".
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  assertByteRange,
  assertSha256,
  assertVariantName,
  BlobNotFound,
  type BlobStore,
  type ByteRange,
  HashingMeter,
  isSha256Hex,
  type StoreEvent,
} from './blob-store.js';
import { S3Guard } from './s3-guard.js';

export interface S3StorageConfig {
  /** e.g. https://s3.eu-west-1.amazonaws.com or http://minio:9000; absent means AWS's default. */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** bucket in the path (http://host/bucket/key) rather than the host name: MinIO, s3rver. */
  forcePathStyle: boolean;
  /** Key prefix for everything SiteHall stores, e.g. 'sitehall/' (one bucket, several uses). */
  prefix?: string;
}

export interface S3BlobStoreOptions {
  /** Objects up to this size are copied server-side; larger ones are streamed through again. */
  maxCopyObjectBytes?: number;
  /** Multipart part size for streamed uploads (S3's minimum, 5 MiB, is the default). */
  partSize?: number;
  /** Parts in flight per upload (default 2): memory per upload is about partSize × (queueSize + 1). */
  queueSize?: number;
  /** How long the store has to answer the guard's HeadBucket before it counts as down (default 1 s). */
  probeMs?: number;
}

const MiB = 1024 * 1024;
/** S3's limit for a single CopyObject. */
const MAX_COPY_OBJECT = 5 * 1024 * MiB;

/**
 * An S3 client for S3-compatible stores. Checksums are computed only where the API requires them:
 * the SDK's default (a CRC32 trailer on every upload) is refused by several S3-compatible servers,
 * and every blob is already named by its SHA-256.
 */
export function createS3Client(
  config: S3StorageConfig,
  /**
   * Nothing waits on the store without a bound: a connection must open within `connectMs`, and a
   * socket that stays silent for `idleMs` (a store that stopped answering, mid-answer too) fails
   * the call. An idle bound, not a total one, so a long download of a large file still finishes.
   * A store that accepts connections and then says nothing is found out sooner, by the store's
   * guard (storage/s3-guard.ts).
   */
  timeouts: { connectMs: number; idleMs: number } = { connectMs: 1_000, idleMs: 15_000 },
): S3Client {
  // The SDK warns once per process on Node 20 that releases after January 2027 will need Node 22;
  // this is the switch it documents for that (aws/aws-sdk-js-v3#7983). An operator's own value wins.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const agent = { keepAlive: true, maxSockets: 256 };
  return new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    ...(config.accessKeyId && config.secretAccessKey
      ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
      : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      httpAgent: new http.Agent(agent),
      httpsAgent: new https.Agent(agent),
      connectionTimeout: timeouts.connectMs,
      socketTimeout: timeouts.idleMs,
    },
  });
}

export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  readonly bucket: string;
  readonly #prefix: string;
  readonly #maxCopy: number;
  readonly #partSize: number;
  readonly #queueSize: number;
  /** Every call to the bucket runs through it: an outage is a 503 within about 1.5 s, then at once. */
  readonly guard: S3Guard;

  constructor(client: S3Client, bucket: string, prefix = '', opts: S3BlobStoreOptions = {}) {
    this.client = client;
    this.bucket = bucket;
    this.#prefix = prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix;
    this.#maxCopy = opts.maxCopyObjectBytes ?? MAX_COPY_OBJECT;
    this.#partSize = opts.partSize ?? 5 * MiB;
    this.#queueSize = opts.queueSize ?? 2;
    this.guard = new S3Guard(
      (abortSignal) => client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal }),
      opts.probeMs ?? 1_000,
    );
  }

  reportTo(onEvent: (event: StoreEvent) => void): void {
    this.guard.reportTo(onEvent);
  }

  throwIfDown(): void {
    this.guard.throwIfDown();
  }

  get down(): boolean {
    return this.guard.down;
  }

  static fromConfig(config: S3StorageConfig, opts?: S3BlobStoreOptions): S3BlobStore {
    return new S3BlobStore(createS3Client(config), config.bucket, config.prefix ?? '', opts);
  }

  /**
   * Resolves when the bucket exists and these credentials may use it; throws the reason otherwise.
   * A store that accepts the connection and says nothing for `timeoutMs` fails with a TimeoutError
   * (an outage, as the SDK's own timeouts are).
   */
  async check(timeoutMs = 3_000): Promise<void> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: signal });
    } catch (error) {
      if (!signal.aborted) throw error;
      throw Object.assign(new Error(`no answer from the bucket within ${timeoutMs} ms`), {
        name: 'TimeoutError',
      });
    }
  }

  async put(source: Readable): Promise<{ sha256: string; size: number }> {
    const meter = new HashingMeter();
    const tmpKey = `${this.#prefix}tmp/${Date.now()}-${randomBytes(8).toString('hex')}`;
    // A failed upload destroys meter, which ends this pipeline too: the upload reports the cause.
    pipeline(source, meter).catch(() => {});
    await this.#upload(tmpKey, meter, source);
    try {
      const { sha256, size } = meter.result();
      const finalKey = this.#blobKey(sha256);
      if (!(await this.#headSize(finalKey))) {
        if (size <= this.#maxCopy) {
          await this.#send((abortSignal) =>
            this.client.send(
              new CopyObjectCommand({
                Bucket: this.bucket,
                Key: finalKey,
                CopySource: `${this.bucket}/${encodeKey(tmpKey)}`,
              }),
              { abortSignal },
            ),
          );
        } else {
          const body = await this.#get(tmpKey);
          if (!body) throw new Error(`Temporary object ${tmpKey} vanished before it was stored`);
          await this.#upload(finalKey, body, body);
        }
      }
      return { sha256, size };
    } finally {
      // A temp object that cannot be deleted now is harmless: removeStaleTemp takes it later.
      await this.#deleteKey(tmpKey).catch(() => {});
    }
  }

  async putFile(filePath: string, sha256: string): Promise<void> {
    assertSha256(sha256);
    const key = this.#blobKey(sha256);
    if (!(await this.#headSize(key))) {
      // The hash is known: straight to the final key, which the upload fills in one step. A file
      // of known size up to one part streams in a single PutObject, with nothing held in memory.
      const { size } = await fsp.stat(filePath);
      const file = fs.createReadStream(filePath, { highWaterMark: 1 * MiB });
      if (size <= this.#partSize) {
        // The SDK pipes the body into its request without listening to it: a read error is taken
        // here (it would otherwise end the process), aborts the request and is what is reported.
        const abort = new AbortController();
        let readError: unknown = null;
        file.on('error', (error) => {
          readError ??= error;
          abort.abort();
        });
        try {
          await this.#send(
            (abortSignal) =>
              this.client.send(
                new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: file, ContentLength: size }),
                { abortSignal },
              ),
            abort.signal,
          );
        } catch (error) {
          throw readError ?? error;
        } finally {
          file.destroy();
        }
      } else {
        await this.#upload(key, file, file);
      }
    }
    await fsp.rm(filePath, { force: true });
  }

  async putBytes(bytes: Buffer, sha256: string): Promise<void> {
    assertSha256(sha256);
    const key = this.#blobKey(sha256);
    if (await this.#headSize(key)) return;
    // Bytes in memory are at most a deploy batch's small file: one PutObject.
    await this.#send((abortSignal) =>
      this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.length }),
        { abortSignal },
      ),
    );
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    assertSha256(sha256);
    if (range) assertByteRange(range);
    try {
      const res = await this.#getObject(this.#blobKey(sha256), range);
      if (!res) throw new BlobNotFound(sha256);
      // Some S3-compatible servers (s3rver) read "bytes=0-0" as "bytes=0-": never send more than asked.
      const wanted = range ? range.end - range.start + 1 : Number.POSITIVE_INFINITY;
      return res.size > wanted ? firstBytes(res.body, wanted) : res.body;
    } catch (error) {
      // 416: the range starts past the last byte (S3 clamps an end past it by itself).
      if (httpStatus(error) === 416) throw new RangeError(`Range starts past the end of blob ${sha256}`);
      throw error;
    }
  }

  async stat(sha256: string): Promise<{ size: number } | null> {
    assertSha256(sha256);
    return this.#headSize(this.#blobKey(sha256));
  }

  async delete(sha256: string): Promise<void> {
    assertSha256(sha256);
    await this.#deleteKey(this.#blobKey(sha256));
    const variants: string[] = [];
    for await (const object of this.#listKeys(this.#variantKey(sha256, ''))) variants.push(object.key);
    if (variants.length > 0) {
      await this.#send((abortSignal) =>
        this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: variants.map((Key) => ({ Key })), Quiet: true },
          }),
          { abortSignal },
        ),
      );
    }
  }

  async *list(): AsyncIterable<string> {
    const root = `${this.#prefix}blobs/`;
    for await (const { key } of this.#listKeys(root)) {
      const name = key.slice(root.length);
      // Exactly <aa>/<hash>: anything else under blobs/ is not ours.
      const hash = name.slice(3);
      if (name[2] === '/' && isSha256Hex(hash) && name.startsWith(hash.slice(0, 2))) yield hash;
    }
  }

  async putVariant(sha256: string, variant: string, source: Readable): Promise<void> {
    assertSha256(sha256);
    assertVariantName(variant);
    if (!(await this.stat(sha256))) {
      source.destroy();
      throw new BlobNotFound(sha256);
    }
    const key = this.#variantKey(sha256, variant);
    await this.#upload(key, source, source);
    // The blob may have been deleted while the variant was written: no variant may outlive it.
    if (!(await this.stat(sha256))) {
      await this.#deleteKey(key);
      throw new BlobNotFound(sha256);
    }
  }

  async readVariant(sha256: string, variant: string): Promise<Readable | null> {
    assertSha256(sha256);
    assertVariantName(variant);
    return this.#get(this.#variantKey(sha256, variant));
  }

  async statVariant(sha256: string, variant: string): Promise<{ size: number } | null> {
    assertSha256(sha256);
    assertVariantName(variant);
    return this.#headSize(this.#variantKey(sha256, variant));
  }

  /** Closes the client's keep-alive connections (its HTTP agents); the store is unusable after. */
  async close(): Promise<void> {
    this.guard.close();
    this.client.destroy();
  }

  /**
   * Deletes temp objects older than maxAgeMs, left when a process died between a put's upload and
   * its copy. The age limit keeps puts still running (here or on another instance) safe. Multipart
   * uploads cut off by a crash are not objects and are not listed here: a bucket lifecycle rule
   * (AbortIncompleteMultipartUpload) removes them, see README "S3-compatible storage".
   */
  async removeStaleTemp(maxAgeMs = 60 * 60_000): Promise<number> {
    const cutoff = Date.now() - maxAgeMs;
    const stale: string[] = [];
    for await (const object of this.#listKeys(`${this.#prefix}tmp/`)) {
      if (object.lastModified !== undefined && object.lastModified < cutoff) stale.push(object.key);
    }
    for (let i = 0; i < stale.length; i += 1000) {
      await this.#send((abortSignal) =>
        this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: stale.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
          }),
          { abortSignal },
        ),
      );
    }
    return stale.length;
  }

  /** Keys of temp objects now present (tests check that none are left behind). */
  async tempKeys(): Promise<string[]> {
    const keys: string[] = [];
    for await (const object of this.#listKeys(`${this.#prefix}tmp/`)) keys.push(object.key);
    return keys;
  }

  #blobKey(sha256: string): string {
    return `${this.#prefix}blobs/${sha256.slice(0, 2)}/${sha256}`;
  }

  #variantKey(sha256: string, variant: string): string {
    return `${this.#prefix}variants/${sha256}.${variant}`;
  }

  /**
   * Streams `body` to `key` (one PutObject when small, a multipart upload otherwise; lib-storage
   * aborts the multipart upload when the body fails). When `source` (what feeds body, or body
   * itself) fails, its error is the one reported (the client went away), not the upload's.
   */
  async #upload(key: string, body: Readable, source: Readable): Promise<void> {
    let sourceError: unknown = null;
    const onError = (error: unknown) => {
      sourceError ??= error;
    };
    source.on('error', onError);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: this.#partSize,
      queueSize: this.#queueSize,
    });
    try {
      await this.guard.run((signal) => {
        signal.addEventListener('abort', () => void upload.abort().catch(() => {}), { once: true });
        return upload.done();
      });
    } catch (error) {
      body.destroy();
      throw sourceError ?? error;
    } finally {
      source.off('error', onError);
    }
  }

  /** One call to the bucket (`call` passes the signal to client.send), through the guard; `own` aborts it too. */
  #send<T>(call: (abortSignal: AbortSignal) => Promise<T>, own?: AbortSignal): Promise<T> {
    return this.guard.run(call, own);
  }

  async #get(key: string): Promise<Readable | null> {
    return (await this.#getObject(key))?.body ?? null;
  }

  async #getObject(key: string, range?: ByteRange): Promise<{ body: Readable; size: number } | null> {
    try {
      const res = await this.#send((abortSignal) =>
        this.client.send(
          new GetObjectCommand({
            Bucket: this.bucket,
            Key: key,
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
          { abortSignal },
        ),
      );
      // In Node the body is the HTTP response itself, a Readable.
      return { body: res.Body as Readable, size: res.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async #headSize(key: string): Promise<{ size: number } | null> {
    try {
      const res = await this.#send((abortSignal) =>
        this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }),
      );
      return { size: res.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async #deleteKey(key: string): Promise<void> {
    // S3 answers 204 for a key that does not exist: deleting is idempotent.
    await this.#send((abortSignal) =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }),
    );
  }

  async *#listKeys(prefix: string): AsyncIterable<{ key: string; lastModified?: number }> {
    let token: string | undefined;
    do {
      const page = await this.#send((abortSignal) =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
          { abortSignal },
        ),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key) yield { key: object.Key, lastModified: object.LastModified?.getTime() };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || httpStatus(error) === 404;
}

/** The first `limit` bytes of a stream; the rest is not read (the source is closed). */
function firstBytes(source: Readable, limit: number): Readable {
  let left = limit;
  const head = new Transform({
    // The reader went away (a client closed the connection): release the S3 response too.
    destroy(error, callback) {
      source.destroy();
      callback(error);
    },
    transform(chunk: Buffer, _encoding, callback) {
      if (left <= 0) return callback();
      const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
      left -= part.length;
      callback(null, part);
      if (left <= 0) {
        this.end();
        source.destroy();
      }
    },
  });
  source.on('error', (error) => head.destroy(error));
  return source.pipe(head);
}

/** CopySource is a URL path: each key segment percent-encoded, the slashes kept. */
function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
