/**
 * What a backup folder holds, described by its manifest.json (written last: a folder without one
 * is an unfinished backup). Layout:
 *   manifest.json
 *   sitehall.db        SQLite: a page-by-page copy made with SQLite's online backup API
 *   database.pgdump    PostgreSQL: pg_dump's custom format (pg_restore reads it)
 *   blobs/             every blob the database refers to, in the local store's layout
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';

export const MANIFEST_FILE = 'manifest.json';
export const SQLITE_FILE = 'sitehall.db';
export const PG_DUMP_FILE = 'database.pgdump';
export const BLOBS_DIR = 'blobs';

export const backupManifest = z.object({
  format: z.literal('sitehall-backup'),
  version: z.literal(1),
  createdAt: z.string(),
  database: z.object({
    kind: z.enum(['sqlite', 'postgres']),
    file: z.string(),
    bytes: z.number(),
    sha256: z.string(),
    /** The PostgreSQL schema that was dumped, when the install uses one of its own. */
    schema: z.string().optional(),
  }),
  migrations: z.array(z.string()),
  blobs: z.object({ count: z.number(), bytes: z.number() }),
});
export type BackupManifest = z.infer<typeof backupManifest>;

export async function fileDigest(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(fs.createReadStream(file), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  });
  return { sha256: hash.digest('hex'), bytes };
}

export async function writeManifest(dir: string, manifest: BackupManifest): Promise<void> {
  const tmp = path.join(dir, `${MANIFEST_FILE}.tmp`);
  await fs.promises.writeFile(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  await fs.promises.rename(tmp, path.join(dir, MANIFEST_FILE));
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await fs.promises.readFile(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new BackupError(`${dir} 不是完整的备份（缺少 ${MANIFEST_FILE}）/ not a finished backup`);
  }
  const parsed = backupManifest.safeParse(JSON.parse(text));
  if (!parsed.success) throw new BackupError(`${MANIFEST_FILE} 无法识别 / unknown manifest format`);
  return parsed.data;
}

/** A refusal the operator can act on: printed without a stack trace, exit status 2. */
export class BackupError extends Error {}

/** True when the folder is missing or has nothing in it. */
export async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await fs.promises.readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}
