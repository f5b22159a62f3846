/**
 * npm run backup / npm run restore, run as an operator runs them (the commands' sources in a
 * process of their own): a live site backed up while the server serves it, everything wiped,
 * restored into an empty data folder (and, on PostgreSQL, the dropped schema), and the site is
 * served again byte for byte.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { migrationNames } from '../src/db/migrations/index.js';
import * as deploymentFiles from '../src/repositories/deployment-files.js';
import {
  createTestApp,
  listenPort,
  listTree,
  liveProject,
  type TestApp,
  tempDir,
  type UploadFile,
  usingPostgres,
} from './helpers.js';
import { runCli } from './support/cli.js';
import { emptyPostgresDatabase } from './support/pg-template.js';
import { startS3rver } from './support/s3rver.js';

async function siteBytes(port: number, id: number, files: UploadFile[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const f of files) {
    const res = await fetch(`http://127.0.0.1:${port}/sites/${id}/${f.name}`);
    expect(res.status).toBe(200);
    out.set(f.name, Buffer.from(await res.arrayBuffer()));
  }
  return out;
}

/** Blobs in the data folder (writes in progress aside). */
function storedLocally(dataDir: string): string[] {
  return listTree(dataDir).filter((p) => p.startsWith('blobs/') && !p.startsWith('blobs/.tmp'));
}

const SITE: UploadFile[] = [
  { name: 'index.html', content: '<!doctype html><h1>备份测试</h1><a href="media/data.pdf">pdf</a>' },
  { name: 'media/data.pdf', content: Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(300 * 1024)]) },
  { name: 'js/app.js', content: `console.log(${JSON.stringify('x'.repeat(5000))});` },
];

/** The live version's two pictures, as the render worker stores them (it is off in tests). */
async function givePictures(t: TestApp, projectId: number): Promise<string[]> {
  const p = await t.ctx.repositories.projects.byId(t.ctx.db, projectId);
  const pictures = [];
  for (const size of [4, 2]) {
    const bytes = Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 '), randomBytes(size * 1024)]);
    pictures.push((await t.ctx.store.put(Readable.from([bytes]))).sha256);
  }
  await t.ctx.db
    .updateTable('deployments')
    .set({ thumbnail_sha256: pictures[0]!, thumbnail_small_sha256: pictures[1]! })
    .where('id', '=', p!.live_deployment_id!)
    .execute();
  return pictures;
}

/** Referenced blobs the store lacks: none, after a restore. */
async function unresolved(built: BuiltApp): Promise<string[]> {
  const missing = [];
  for (const sha256 of await deploymentFiles.referencedHashes(built.ctx.db))
    if (!(await built.ctx.store.stat(sha256))) missing.push(sha256);
  return missing;
}

describe('backup and restore', () => {
  const dirs: string[] = [];
  const drops: Array<() => Promise<void>> = [];
  /**
   * Where a wiped install is restored: on PostgreSQL an empty database of its own (createTestApp's
   * cleanup drops the backed-up one when the app closes), dropped when the tests end.
   */
  const wipedDatabase = async (database: Config['database']): Promise<Config['database']> => {
    if (!usingPostgres) return database;
    const empty = await emptyPostgresDatabase(process.env.TEST_DATABASE_URL!);
    drops.push(empty.drop);
    return empty.database;
  };
  afterAll(async () => {
    for (const drop of drops) await drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('backs up a running install, and a wiped one restored serves the same bytes', async () => {
    const t = await createTestApp();
    const { id } = await liveProject(t, SITE);
    const pictures = await givePictures(t, id);
    const port = await listenPort(t);
    const before = await siteBytes(port, id, SITE);
    const backupDir = tempDir('sitehall-backup-');
    dirs.push(backupDir);
    const dest = path.join(backupDir, 'b1');

    // The server keeps answering while the backup runs.
    let serving = true;
    const load = (async () => {
      let n = 0;
      while (serving) {
        const res = await fetch(`http://127.0.0.1:${port}/sites/${id}/`);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        n++;
      }
      return n;
    })();
    const made = await runCli('backup.ts', [dest], t.config);
    serving = false;
    expect(await load).toBeGreaterThan(0);
    expect(made.stderr + made.stdout).toContain('backup written');
    expect(made.code).toBe(0);

    const manifest = JSON.parse(fs.readFileSync(path.join(dest, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      format: 'sitehall-backup',
      version: 1,
      database: { kind: t.config.database.kind },
      migrations: [...migrationNames],
      // The three files and the version's two pictures.
      blobs: { count: 5 },
    });

    // A backup never writes over another.
    const again = await runCli('backup.ts', [dest], t.config);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('not empty');

    // Wipe: the data folder and (PostgreSQL) the database go.
    const database = await wipedDatabase(t.config.database);
    await t.close();
    expect(fs.existsSync(t.dataDir)).toBe(false);

    const dataDir = tempDir('sitehall-restored-');
    dirs.push(dataDir);
    const target: Config = {
      ...t.config,
      dataDir,
      database:
        database.kind === 'sqlite' ? { kind: 'sqlite', file: path.join(dataDir, 'sitehall.db') } : database,
    };
    const restored = await runCli('restore.ts', [dest], target);
    expect(restored.stderr + restored.stdout).toContain('restored');
    expect(restored.code).toBe(0);

    // A second restore would overwrite the install: refused without --force.
    const refused = await runCli('restore.ts', [dest], target);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not empty|already holds/);

    const built = await buildApp(target, { logger: false });
    try {
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      const restoredPort = (built.app.server.address() as { port: number }).port;
      // Replacing the database of a running server is refused, --force or not.
      const underServer = await runCli('restore.ts', [dest, '--force'], target);
      expect(underServer.code).toBe(2);
      expect(underServer.stderr).toContain('服务器仍在使用数据库');
      const after = await siteBytes(restoredPort, id, SITE);
      for (const f of SITE) expect(after.get(f.name)!.equals(before.get(f.name)!)).toBe(true);
      expect(await unresolved(built)).toEqual([]);
      const picture = await fetch(`http://127.0.0.1:${restoredPort}/api/thumbnails/${pictures[0]}.webp`);
      expect(picture.status).toBe(200);
      expect((await picture.arrayBuffer()).byteLength).toBeGreaterThan(0);
    } finally {
      await built.app.close();
    }
    // With the server stopped, --force replaces the install.
    const forced = await runCli('restore.ts', [dest, '--force'], target);
    expect(forced.stderr + forced.stdout).toContain('restored');
    expect(forced.code).toBe(0);
  });

  it('backs up an install on S3 storage, and restores it into a new, empty bucket', async () => {
    // The bucket is lost (a deleted bucket, a provider's incident): the backup holds the blobs,
    // read from the bucket through the configured store, and the restore puts them into another.
    const lost = await startS3rver();
    const fresh = await startS3rver();
    try {
      const t = await createTestApp({ storage: loadConfig(lost.env).storage });
      const { id } = await liveProject(t, SITE);
      await givePictures(t, id);
      const before = await siteBytes(await listenPort(t), id, SITE);
      // The data folder holds no blobs on S3: only the database (SQLite) would be in it.
      expect(storedLocally(t.dataDir)).toEqual([]);
      const backupDir = tempDir('sitehall-backup-s3-');
      dirs.push(backupDir);
      const dest = path.join(backupDir, 'b');
      const made = await runCli('backup.ts', [dest], t.config, lost.env);
      expect(made.stderr + made.stdout).toContain('backup written');
      expect(made.code).toBe(0);
      expect(JSON.parse(fs.readFileSync(path.join(dest, 'manifest.json'), 'utf8'))).toMatchObject({
        blobs: { count: 5 },
      });

      const database = await wipedDatabase(t.config.database);
      await t.close();
      await lost.close();

      const dataDir = tempDir('sitehall-restored-s3-');
      dirs.push(dataDir);
      const target: Config = {
        ...t.config,
        dataDir,
        storage: loadConfig(fresh.env).storage,
        database:
          database.kind === 'sqlite' ? { kind: 'sqlite', file: path.join(dataDir, 'sitehall.db') } : database,
      };
      const restored = await runCli('restore.ts', [dest], target, fresh.env);
      expect(restored.stderr + restored.stdout).toContain('restored');
      expect(restored.code).toBe(0);

      const built = await buildApp(target, { logger: false });
      try {
        await built.app.listen({ port: 0, host: '127.0.0.1' });
        const after = await siteBytes((built.app.server.address() as { port: number }).port, id, SITE);
        for (const f of SITE) expect(after.get(f.name)!.equals(before.get(f.name)!)).toBe(true);
        // The blobs are in the new bucket, not the data folder.
        const blobs: string[] = [];
        for await (const sha256 of built.ctx.store.list()) blobs.push(sha256);
        expect(blobs).toHaveLength(5);
        expect(await unresolved(built)).toEqual([]);
        expect(storedLocally(dataDir)).toEqual([]);
      } finally {
        await built.app.close();
      }
    } finally {
      await lost.close();
      await fresh.close();
    }
  });

  it('refuses a folder that is not a finished backup', async () => {
    const t = await createTestApp();
    try {
      const empty = tempDir('sitehall-not-backup-');
      const dataDir = tempDir('sitehall-restored-');
      dirs.push(empty, dataDir);
      const res = await runCli('restore.ts', [empty], { ...t.config, dataDir });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('manifest.json');
    } finally {
      await t.close();
    }
  });
});
