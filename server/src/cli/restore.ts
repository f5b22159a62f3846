/**
 * npm run restore -- SRC [--force]: puts a backup made by npm run backup back, with the server
 * stopped, into an empty data folder or database (see backup/restore.ts).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BackupError } from '../backup/manifest.js';
import { restore } from '../backup/restore.js';
import { loadConfig } from '../config.js';
import { openBlobStore } from '../storage/index.js';

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { force: { type: 'boolean', default: false } },
  });
  const src = positionals[0];
  if (!src || positionals.length > 1) {
    console.error('用法 usage: npm run restore -- SRC [--force]');
    process.exit(2);
  }
  const config = loadConfig();
  const store = await openBlobStore(config);
  const manifest = await restore({
    config,
    store,
    src: path.resolve(src),
    force: values.force,
    log: (line) => console.error(line),
  }).finally(() => store.close());
  console.log(`恢复完成 / restored the backup of ${manifest.createdAt}: ${manifest.blobs.count} blobs`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(err instanceof BackupError ? 2 : 1);
});
