/**
 * `npm run restore -- SRC [--force]`, with the server stopped: the database from the backup, then
 * its blobs into the configured store (each re-hashed on the way, so a damaged copy is caught),
 * then a check that every blob the restored database refers to is there. Refuses a data folder
 * (SQLite) or database (PostgreSQL) that already holds an install unless --force, which replaces
 * the database; blobs already in the store stay, and the next start sweeps those nothing refers to.
 * A database a server still uses is refused, --force or not: the server would go on with the old
 * database's file open (SQLite) or lose its tables mid-request (PostgreSQL).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { openDatabase } from '../db/database.js';
import { hasTable, migrationNames, otherConnections, sqliteInUse } from '../db/probe.js';
import * as deploymentFiles from '../repositories/deployment-files.js';
import { type BlobStore, LocalBlobStore } from '../storage/index.js';
import { run } from './backup.js';
import {
  BackupError,
  type BackupManifest,
  BLOBS_DIR,
  fileDigest,
  isEmptyDir,
  readManifest,
} from './manifest.js';

export interface RestoreOptions {
  config: Config;
  store: BlobStore;
  src: string;
  force?: boolean;
  log?: (line: string) => void;
}

export async function restore({ config, store, src, force = false, log = () => {} }: RestoreOptions) {
  const manifest = await readManifest(src);
  const dbFile = path.join(src, manifest.database.file);
  const digest = await fileDigest(dbFile).catch(() => null);
  if (digest?.sha256 !== manifest.database.sha256) {
    throw new BackupError(`备份中的数据库文件缺失或已损坏 / ${dbFile} is missing or damaged`);
  }
  const unknown = manifest.migrations.filter((name) => !migrationNames.includes(name));
  if (unknown.length > 0) {
    throw new BackupError(
      `备份来自更新的版本 / the backup comes from a newer version (${unknown.join(', ')})`,
    );
  }
  const database = config.database;
  if (manifest.database.kind !== database.kind) {
    throw new BackupError(
      `备份是 ${manifest.database.kind} 数据库，当前配置是 ${database.kind} / restore into the same kind of database, then move with npm run migrate-storage`,
    );
  }
  if (database.kind === 'sqlite') await restoreSqlite(config.dataDir, database.file, dbFile, force);
  else await restorePostgres(database, dbFile, manifest, force);
  log('database restored');

  const source = new LocalBlobStore(path.join(src, BLOBS_DIR));
  let count = 0;
  for await (const sha256 of source.list()) {
    if (!(await store.stat(sha256))) {
      const { sha256: got } = await store.put(await source.read(sha256));
      if (got !== sha256) {
        await store.delete(got);
        throw new BackupError(`备份中的文件已损坏 / blob ${sha256} in the backup is damaged`);
      }
    }
    count++;
  }
  log(`${count} blobs restored`);

  const handle = openDatabase(database);
  try {
    const missing: string[] = [];
    for (const sha256 of await deploymentFiles.referencedHashes(handle.db))
      if (!(await store.stat(sha256))) missing.push(sha256);
    if (missing.length > 0) {
      throw new BackupError(
        `${missing.length} 个文件在备份中缺失 / blobs missing from the backup: ${missing[0]}…`,
      );
    }
  } finally {
    await handle.close();
  }
  return manifest;
}

async function restoreSqlite(dataDir: string, target: string, dbFile: string, force: boolean) {
  const occupied = !(await isEmptyDir(dataDir)) || fs.existsSync(target);
  if (occupied && !force) {
    throw new BackupError(
      `数据文件夹不是空的 / ${dataDir} is not empty: restore into an empty one, or add --force to replace its database`,
    );
  }
  if (sqliteInUse(target)) {
    throw new BackupError(
      `服务器仍在使用数据库 ${target}：请先停止服务器再恢复 / a server is using ${target}: stop it before restoring`,
    );
  }
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    await fs.promises.rm(target + suffix, { force: true });
  await fs.promises.mkdir(path.dirname(target), { recursive: true });
  const tmp = `${target}.restoring`;
  await fs.promises.copyFile(dbFile, tmp);
  const handle = await fs.promises.open(tmp, 'r+');
  await handle.sync();
  await handle.close();
  await fs.promises.rename(tmp, target);
}

async function restorePostgres(
  database: { kind: 'postgres'; url: string; schema?: string },
  dumpFile: string,
  manifest: BackupManifest,
  force: boolean,
) {
  const schema = manifest.database.schema;
  const handle = openDatabase(database);
  let found: boolean;
  let others: number;
  try {
    found = await hasTable(handle.db, schema ? `${schema}.projects` : 'projects');
    others = await otherConnections(handle.db);
  } finally {
    await handle.close();
  }
  if (found && !force) {
    throw new BackupError(
      '数据库中已有数据 / the database already holds an install: add --force to replace it',
    );
  }
  if (others > 0) {
    throw new BackupError(
      `服务器仍在使用数据库（另有 ${others} 个连接）：请先停止所有实例再恢复 / ${others} other connections use the database: stop every instance before restoring`,
    );
  }
  await run('pg_restore', [
    '--no-owner',
    '--no-privileges',
    '--exit-on-error',
    ...(force ? ['--clean', '--if-exists'] : []),
    '--dbname',
    database.url,
    dumpFile,
  ]);
}
