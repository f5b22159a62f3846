/**
 * Startup sweep: whatever a crash (kill -9) left half-made is removed before the server takes
 * requests — staging folders of uploads that never committed, and blobs no deployment references
 * (stored just before a crash, before their rows were written).
 */
import fs from 'node:fs';
import type { DB } from '../db/database.js';
import { stagingRoot } from '../ingest/staging.js';
import type { BlobStore } from '../storage/index.js';

export interface SweepResult {
  stagingRemoved: number;
  blobsRemoved: number;
  /** Store writes a crash cut off more than an hour ago (temp files, S3 temp objects). */
  tempRemoved: number;
}

export async function sweepLeftovers(db: DB, store: BlobStore, dataDir: string): Promise<SweepResult> {
  const root = stagingRoot(dataDir);
  let stagingRemoved = 0;
  for (const name of await fs.promises.readdir(root).catch(() => [] as string[])) {
    await fs.promises.rm(`${root}/${name}`, { recursive: true, force: true });
    stagingRemoved++;
  }
  const rows = await db.selectFrom('deployment_files').select('sha256').distinct().execute();
  const referenced = new Set(rows.map((r) => r.sha256));
  let blobsRemoved = 0;
  for await (const hash of store.list()) {
    if (!referenced.has(hash)) {
      await store.delete(hash);
      blobsRemoved++;
    }
  }
  const tempRemoved = await store.removeStaleTemp();
  return { stagingRemoved, blobsRemoved, tempRemoved };
}
