/**
 * The S3 stand itself (support/s3rver-main.mjs, also the chaos run's bucket): s3rver 3.7's file
 * store exited when a delete removed a folder another key's put had just made, before the put
 * opened its file (an unhandled stream error; docs/decisions/faults.md "The chaos run's S3 stand").
 * Puts and deletes of keys sharing folders, many at once, must all be answered, and leave each
 * key as its last write did.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalS3, startS3rver } from './support/s3rver.js';

let s3: LocalS3;
let client: S3Client;
beforeAll(async () => {
  s3 = await startS3rver();
  client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    // Every failure is the stand's: none is retried away.
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client?.destroy();
  await s3?.close();
});

/** 2 × 3 × 3 × 2 keys: few enough folders that puts and deletes meet in them all the time. */
const keyOf = (n: number) =>
  `d${n % 2}/e${Math.floor(n / 2) % 3}/f${Math.floor(n / 6) % 3}/k${Math.floor(n / 18) % 2}`;
const KEYS = Array.from({ length: 36 }, (_, n) => keyOf(n));

async function read(key: string): Promise<string | null> {
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return (await got.Body!.transformToString()) ?? '';
  } catch (error) {
    if (error instanceof NoSuchKey) return null;
    throw error;
  }
}

describe('the S3 stand', () => {
  it('answers every put and delete of keys sharing folders, sent at once, and stays up', async () => {
    let next = 0;
    const failures: string[] = [];
    const worker = async (w: number) => {
      for (let op = next++; op < 2400; op = next++) {
        const key = KEYS[(op * 7 + w) % KEYS.length]!;
        try {
          if (op % 2 === 0) {
            await client.send(
              new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: `${key} ${op}`.repeat(40) }),
            );
          } else {
            await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: key }));
          }
        } catch (error) {
          failures.push(`${op} ${key}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
    expect(failures).toEqual([]);
    // Still the same server, answering.
    await client.send(new HeadBucketCommand({ Bucket: s3.bucket }));

    // Each key is what its last write made it.
    for (const key of KEYS) {
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: `last ${key}` }));
    }
    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: KEYS[0]! }));
    expect(await read(KEYS[0]!)).toBeNull();
    for (const key of KEYS.slice(1)) expect(await read(key)).toBe(`last ${key}`);
    // A key that never existed deletes as S3 deletes it: quietly.
    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: 'never/was/here' }));
  });
});
