/**
 * npm run backup -- DEST: a consistent backup of the database and its blobs into an empty folder,
 * while the server runs (see backup/backup.ts). Reads the same environment as the server.
 */
import path from 'node:path';
import { backup } from '../backup/backup.js';
import { BackupError } from '../backup/manifest.js';
import { loadConfig } from '../config.js';
import { openBlobStore } from '../storage/index.js';

async function main() {
  const dest = process.argv[2];
  if (!dest || dest.startsWith('-')) {
    console.error('用法 usage: npm run backup -- DEST');
    process.exit(2);
  }
  const config = loadConfig();
  const store = await openBlobStore(config);
  const manifest = await backup({
    config,
    store,
    dest: path.resolve(dest),
    log: (line) => console.error(line),
  }).finally(() => store.close());
  console.log(
    `备份完成 / backup written to ${path.resolve(dest)}: ${manifest.database.kind} database, ${manifest.blobs.count} blobs (${manifest.blobs.bytes} bytes)`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(err instanceof BackupError ? 2 : 1);
});
