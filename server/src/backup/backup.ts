/**
 * `npm run backup -- DEST` while the server runs: the database first, then the blobs it refers to.
 *
 * Why that order gives a consistent backup: an upload stores its blobs before the transaction that
 * refers to them commits, so every blob named by the database snapshot already existed when the
 * snapshot was taken; blobs are named by their SHA-256 and never change, so copying one later
 * yields exactly the bytes the snapshot meant. The one thing that can happen in between is a
 * deletion (a project deleted after the snapshot): its blobs may be gone by the time they are
 * copied. Then the snapshot is taken again and the copy resumes (blobs already copied stay), until
 * a snapshot's blobs are all there. Blobs only newer data refers to are not copied at all.
 *
 * SQLite: SQLite's online backup API (better-sqlite3's db.backup), page by page, never blocking
 * the server's writers for long. PostgreSQL: pg_dump in custom format, run on a snapshot exported
 * from a read-only transaction in which the list of blobs is read too, so both see the same data.
 * Both are engine plumbing in db/snapshot.ts; what the snapshot refers to is read through
 * repositories/ and db/probe.ts (the same queries the app and a restore run).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { DB } from '../db/database.js';
import { appliedMigrations } from '../db/probe.js';
import { copySqliteFile, inPostgresSnapshot } from '../db/snapshot.js';
import { referencedHashes } from '../repositories/deployment-files.js';
import { BlobNotFound, type BlobStore, LocalBlobStore } from '../storage/index.js';
import {
  BackupError,
  type BackupManifest,
  BLOBS_DIR,
  fileDigest,
  isEmptyDir,
  PG_DUMP_FILE,
  SQLITE_FILE,
  writeManifest,
} from './manifest.js';

const MAX_ATTEMPTS = 5;

interface Snapshot {
  hashes: string[];
  migrations: string[];
}

export interface BackupOptions {
  config: Config;
  store: BlobStore;
  dest: string;
  log?: (line: string) => void;
}

export async function backup({
  config,
  store,
  dest,
  log = () => {},
}: BackupOptions): Promise<BackupManifest> {
  if (!(await isEmptyDir(dest))) throw new BackupError(`目标文件夹不是空的 / ${dest} is not empty`);
  const database = config.database;
  if (database.kind === 'sqlite' && !fs.existsSync(database.file)) {
    throw new BackupError(`数据库文件不存在 / no database at ${database.file}`);
  }
  await fs.promises.mkdir(dest, { recursive: true });
  const blobs = new LocalBlobStore(path.join(dest, BLOBS_DIR));
  const dbFile = path.join(dest, database.kind === 'sqlite' ? SQLITE_FILE : PG_DUMP_FILE);
  const schema = database.kind === 'postgres' ? postgresSchema(database) : undefined;
  const copied = new Map<string, number>();

  for (let attempt = 1; ; attempt++) {
    const snapshot =
      database.kind === 'sqlite'
        ? await snapshotSqlite(database.file, dbFile)
        : await snapshotPostgres(database, schema, dbFile);
    log(`database: ${snapshot.hashes.length} referenced blobs`);
    let vanished = 0;
    for (const sha256 of snapshot.hashes) {
      if (copied.has(sha256)) continue;
      try {
        const { sha256: got, size } = await blobs.put(await store.read(sha256));
        if (got !== sha256) throw new Error(`blob ${sha256} is damaged: its bytes hash to ${got}`);
        copied.set(sha256, size);
      } catch (error) {
        if (!(error instanceof BlobNotFound)) throw error;
        vanished++;
      }
    }
    if (vanished === 0) {
      // Blobs copied for an earlier snapshot that this one no longer refers to are left out.
      const wanted = new Set(snapshot.hashes);
      for (const sha256 of [...copied.keys()]) {
        if (wanted.has(sha256)) continue;
        await blobs.delete(sha256);
        copied.delete(sha256);
      }
      const digest = await fileDigest(dbFile);
      const manifest: BackupManifest = {
        format: 'sitehall-backup',
        version: 1,
        createdAt: new Date().toISOString(),
        database: {
          kind: database.kind,
          file: path.basename(dbFile),
          ...digest,
          ...(schema ? { schema } : {}),
        },
        migrations: snapshot.migrations,
        blobs: { count: copied.size, bytes: [...copied.values()].reduce((a, b) => a + b, 0) },
      };
      await writeManifest(dest, manifest);
      return manifest;
    }
    if (attempt >= MAX_ATTEMPTS) {
      throw new Error(`${vanished} blobs kept disappearing while backing up; is something deleting them?`);
    }
    log(`${vanished} blobs were deleted after the snapshot; taking it again`);
  }
}

/** What a snapshot refers to: the blobs to copy and the migrations applied. */
async function snapshotOf(db: DB): Promise<Snapshot> {
  return {
    hashes: await referencedHashes(db),
    migrations: [...(await appliedMigrations(db))].sort(),
  };
}

function snapshotSqlite(file: string, dest: string): Promise<Snapshot> {
  return copySqliteFile(file, dest, snapshotOf);
}

async function snapshotPostgres(
  database: { kind: 'postgres'; url: string; schema?: string },
  schema: string | undefined,
  dest: string,
): Promise<Snapshot> {
  await fs.promises.rm(dest, { force: true });
  return inPostgresSnapshot(database, async (trx, snapshotId) => {
    const dump = run('pg_dump', [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      `--snapshot=${snapshotId}`,
      ...(schema ? ['--schema', schema] : []),
      '--file',
      dest,
      '--dbname',
      database.url,
    ]);
    // Awaited below; should a query fail first, its failure is the one reported, not pg_dump's.
    dump.catch(() => {});
    const snapshot = await snapshotOf(trx);
    // The snapshot lives as long as this transaction: pg_dump must have started reading first.
    await dump;
    return snapshot;
  });
}

/**
 * The schema an install keeps its tables in, when not the default: the config's, or the
 * search_path given in the URL's options (`?options=-c search_path=sitehall`).
 */
export function postgresSchema(database: { url: string; schema?: string }): string | undefined {
  if (database.schema) return database.schema;
  const options = new URL(database.url).searchParams.get('options') ?? '';
  return /search_path=([A-Za-z_][A-Za-z0-9_]*)/.exec(options)?.[1];
}

/** Runs a PostgreSQL client tool; its stderr is passed through, a non-zero exit is an error. */
export function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new BackupError(
              `${command} 未安装 / ${command} is not installed (apt-get install postgresql-client)`,
            )
          : error,
      ),
    );
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`)),
    );
  });
}
