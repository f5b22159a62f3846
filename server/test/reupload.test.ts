/**
 * A zip re-upload writes to staging only the contents its project's newest version does not hold
 * (docs/decisions/uploads.md "Re-uploads write only new contents"): the ingest step hashes small
 * entries in memory and skips the file of a held one, and the version stored from such a
 * re-upload is the zip's site byte for byte, with the same types as a full extraction gives.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_LIMITS } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../src/ingest/index.js';
import { createTestApp, listTree, makeZip, type TestApp, tempDir, uploadProject } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

function site(): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {
    'index.html': `<!doctype html><html><head><link rel="stylesheet" href="css/a.css"></head><body>首页 ${Math.random()}</body></html>`,
    'css/a.css': `body { color: #123; } /* ${Math.random()} */`,
    'css/copy.css': 'same bytes twice',
    'css/copy2.css': 'same bytes twice',
    'img/logo.png': Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(5000, 7)]),
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    // Over the size that is hashed in memory first: written as it streams, held or not.
    'big.txt': `${Math.random()}\n${'一行文字 line of text\n'.repeat(200_000)}`,
  };
  for (let i = 0; i < 30; i++) files[`p/${i}.html`] = `<!doctype html><p>${i} ${Math.random()}</p>`;
  return files;
}

async function versionFiles(projectId: number) {
  const rows = await t.ctx.db
    .selectFrom('deployment_files')
    .innerJoin('projects', 'projects.latest_deployment_id', 'deployment_files.deployment_id')
    .select(['deployment_files.path', 'deployment_files.sha256', 'deployment_files.mime_type'])
    .where('projects.id', '=', projectId)
    .execute();
  return new Map(rows.map((r) => [r.path, r]));
}

async function stored(sha256: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await t.ctx.store.read(sha256)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('zip re-uploads', () => {
  it('extracts only what is not held, and marks the rest held', async () => {
    const files = site();
    const dir = tempDir('sitehall-reupload-');
    const archive = path.join(dir, 'site.zip');
    fs.writeFileSync(archive, await makeZip(files));
    const workDir = path.join(dir, 'work');
    fs.mkdirSync(workDir);
    const changed = 'p/3.html';
    const held = Object.entries(files)
      .filter(([p]) => p !== changed)
      .map(([, c]) => sha(c));
    const result = await ingest({
      files: [{ name: 'site.zip', tempFile: archive, size: fs.statSync(archive).size }],
      uploadType: 'zip',
      limits: DEFAULT_LIMITS,
      workDir,
      held,
    });
    const byPath = new Map(result.files.map((f) => [f.path, f]));
    expect([...byPath.keys()].sort()).toEqual(Object.keys(files).sort());
    for (const [p, c] of Object.entries(files)) expect(byPath.get(p)!.sha256, p).toBe(sha(c));
    // On disk: the changed page, and the large script (streamed, so written though held).
    const written = listTree(workDir).filter((f) => fs.statSync(path.join(workDir, f)).isFile());
    expect(written.map((f) => f.replace(/^archive-[^/]+\//, '')).sort()).toEqual(['big.txt', changed].sort());
    // No folder is made for files that are not written.
    expect(listTree(workDir).some((f) => /\/(css|img)$/.test(f))).toBe(false);
    expect(byPath.get(changed)!.held).toBeUndefined();
    expect(byPath.get('big.txt')!.held).toBeUndefined();
    expect(byPath.get('css/a.css')!.held).toBe(true);
    expect(byPath.get('css/a.css')!.tempFile).toBe('');
    expect(fs.readFileSync(byPath.get(changed)!.tempFile, 'utf8')).toBe(files[changed]);
    // The types come from the bytes as always: UTF-8 text says so, Latin-1 text does not.
    expect(byPath.get('css/a.css')!.mimeType).toBe('text/css; charset=utf-8');
    expect(byPath.get('latin1.txt')!.mimeType).toBe('text/plain');
  });

  it('stores a re-upload with one file changed byte for byte, and leaves no lease or staging', async () => {
    const user = await t.createUser();
    const files = site();
    const first = await uploadProject(t, user.token, {
      name: '重新上传',
      uploadType: 'zip',
      files: [{ name: 'site.zip', content: await makeZip(files) }],
    });
    expect(first.statusCode, first.body).toBe(201);
    const id = first.json().data.project.id as number;
    const v1 = await versionFiles(id);
    const leasesBefore = await t.ctx.db.selectFrom('blob_leases').select('sha256').execute();

    const next = { ...files, 'p/3.html': `<!doctype html><p>改了 ${Math.random()}</p>`, 'new.txt': '新文件' };
    const second = await uploadProject(t, user.token, {
      projectId: id,
      uploadType: 'zip',
      files: [{ name: 'site.zip', content: await makeZip(next) }],
    });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().data.project.latest_version).toBe(2);
    const v2 = await versionFiles(id);
    expect([...v2.keys()].sort()).toEqual(Object.keys(next).sort());
    for (const [p, c] of Object.entries(next)) {
      expect(v2.get(p)!.sha256, p).toBe(sha(c));
      expect((await stored(sha(c))).equals(Buffer.from(c)), p).toBe(true);
      if (v1.has(p) && p !== 'p/3.html') expect(v2.get(p)!.mime_type, p).toBe(v1.get(p)!.mime_type);
    }
    expect(await t.ctx.db.selectFrom('blob_leases').select('sha256').execute()).toEqual(leasesBefore);
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
  }, 600_000);
});
