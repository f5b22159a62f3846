/**
 * npm run migrate-storage [-- --to-database postgres://...]: moves an install from the local data
 * folder (and SQLite) to S3-compatible storage (and PostgreSQL). Reads the same environment as the
 * server: DATA_DIR is the source of the blobs, the S3_* variables (with STORAGE=s3) name the
 * target bucket, and the SQLite database in use (DATA_DIR/sitehall.db, or DATABASE_URL=sqlite:)
 * is the source of --to-database. Stop the server first. Safe to run again: blobs already in the
 * bucket are skipped, and the database copy refuses a target that is not empty.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { copySqliteToPostgres } from '../db/copy-database.js';
import { type CopyProgress, copyBlobs } from '../storage/copy-blobs.js';
import { LocalBlobStore, openBlobStore } from '../storage/index.js';

const USAGE = `用法 usage: npm run migrate-storage [-- --to-database postgres://user@host/db]
  With STORAGE=s3 and the S3_* variables set: copies every site file from DATA_DIR to the bucket.
  With --to-database: copies the SQLite database into that empty PostgreSQL database.`;

const MB = 1024 * 1024;

async function main() {
  const { values } = parseArgs({
    options: { 'to-database': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  const toDatabase = values['to-database'];
  if (config.storage.kind !== 's3' && !toDatabase) {
    console.error(`Nothing to do: set STORAGE=s3 and the S3_* variables, or pass --to-database.\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (toDatabase && !/^postgres(ql)?:\/\//.test(toDatabase)) {
    throw new ConfigError('--to-database must be a postgres:// or postgresql:// URL');
  }
  if (toDatabase && config.database.kind !== 'sqlite') {
    throw new ConfigError('--to-database copies from SQLite: the current DATABASE_URL is already PostgreSQL');
  }

  if (config.storage.kind === 's3') {
    const source = LocalBlobStore.inDataDir(config.dataDir);
    const target = await openBlobStore(config);
    console.log(
      `站点文件 site files: ${config.dataDir}/blobs → s3://${config.storage.bucket}/${config.storage.prefix ?? ''}`,
    );
    let last = 0;
    const result = await copyBlobs(source, target, {
      onProgress: (p) => {
        // A line every second, and the last one.
        if (p.done === p.total || Date.now() - last >= 1000) {
          last = Date.now();
          console.log(progressLine(p));
        }
      },
    }).finally(() => target.close());
    if (result.total === 0) console.log('  (no files)');
    console.log(
      `完成 done: ${result.copied} copied, ${result.skipped} already there, ${result.variants} compressed variants, ${(result.bytes / MB).toFixed(1)} MB sent`,
    );
  }

  if (toDatabase && config.database.kind === 'sqlite') {
    console.log(`数据库 database: ${config.database.file} → ${redact(toDatabase)}`);
    const tables = await copySqliteToPostgres(config.database.file, toDatabase, ({ table, rows }) =>
      console.log(`  ${table}: ${rows} rows`),
    );
    console.log(
      `完成 done: ${tables.length} tables copied. Set DATABASE_URL to the new database and start the server.`,
    );
  }
}

function progressLine(p: CopyProgress): string {
  const pct = p.total ? Math.floor((p.done / p.total) * 100) : 100;
  return `  ${p.done}/${p.total} (${pct}%): ${p.copied} copied, ${p.skipped} already there, ${(p.bytes / MB).toFixed(1)} MB`;
}

/** The URL without its password, for the console. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
