/**
 * A zip re-upload writes to staging only the contents its project's newest version does not hold
 * (docs/decisions/uploads.md "Re-uploads write only new contents"): the ingest step hashes small
 * entries in memory and skips the file of a held one, and the version stored from such a
 * re-upload is the zip's site byte for byte, with the same types as a full extraction gives. Any
 * zip upload asks, batch by batch, which of its hashed contents the store holds from other
 * uploads, whoever made them ("Contents another upload stored"), and skips those files too.
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

describe('contents another upload stored', () => {
  function ingestZip(
    archive: string,
    workDir: string,
    opts: { held?: string[]; stored?: (h: string[]) => Promise<string[]> },
  ) {
    return ingest({
      files: [{ name: 'site.zip', tempFile: archive, size: fs.statSync(archive).size }],
      uploadType: 'zip',
      limits: DEFAULT_LIMITS,
      workDir,
      ...opts,
    });
  }

  it('asks in batches about what is not known held, writes only what the store lacks, in the zip’s order', async () => {
    const files = site();
    for (let i = 0; i < 620; i++) files[`many/${i}.txt`] = `第 ${i} 个 ${Math.random()}`;
    const dir = tempDir('sitehall-stored-');
    const archive = path.join(dir, 'site.zip');
    fs.writeFileSync(archive, await makeZip(files));
    const workDir = path.join(dir, 'work');
    fs.mkdirSync(workDir);
    const projectHeld = [sha(files['css/a.css'] as string)];
    const elsewhere = new Set(
      Object.entries(files)
        .filter(([p]) => p.startsWith('many/') && Number(p.slice(5, -4)) % 2 === 0)
        .map(([, c]) => sha(c)),
    );
    elsewhere.add(sha(files['img/logo.png']!));
    const questions: string[][] = [];
    const result = await ingestZip(archive, workDir, {
      held: projectHeld,
      stored: async (hashes) => {
        questions.push(hashes);
        return hashes.filter((h) => elsewhere.has(h));
      },
    });
    // More than one question for 650 small entries, none past a batch, none about a known one.
    expect(questions.length).toBeGreaterThan(1);
    for (const q of questions) {
      expect(q.length).toBeLessThanOrEqual(500);
      expect(q).not.toContain(projectHeld[0]);
      expect(new Set(q).size).toBe(q.length);
    }
    const asked = new Set(questions.flat());
    // The large file streams to disk as before: never asked about.
    expect(asked.has(sha(files['big.txt'] as string))).toBe(false);
    // The files come in the order a plain extraction gives.
    const plainDir = path.join(dir, 'plain');
    fs.mkdirSync(plainDir);
    const plain = await ingestZip(archive, plainDir, {});
    expect(result.files.map((f) => f.path)).toEqual(plain.files.map((f) => f.path));
    const byPath = new Map(result.files.map((f) => [f.path, f]));
    expect([...byPath.keys()].sort()).toEqual(Object.keys(files).sort());
    for (const [p, c] of Object.entries(files)) {
      const f = byPath.get(p)!;
      expect(f.sha256, p).toBe(sha(c));
      const held = projectHeld.includes(f.sha256) || elsewhere.has(f.sha256);
      expect(Boolean(f.held), p).toBe(held);
      if (held) expect(f.tempFile, p).toBe('');
      else expect(fs.readFileSync(f.tempFile).equals(Buffer.from(c)), p).toBe(true);
    }
    const written = listTree(workDir).filter((f) => fs.statSync(path.join(workDir, f)).isFile());
    expect(written.length).toBe(Object.keys(files).length - 1 - elsewhere.size);
  });

  it('writes everything when the question fails, as when nothing is held', async () => {
    const files = site();
    const dir = tempDir('sitehall-stored-');
    const archive = path.join(dir, 'site.zip');
    fs.writeFileSync(archive, await makeZip(files));
    const workDir = path.join(dir, 'work');
    fs.mkdirSync(workDir);
    const result = await ingestZip(archive, workDir, {
      stored: async () => {
        throw new Error('the database went away');
      },
    });
    expect(result.files.length).toBe(Object.keys(files).length);
    for (const f of result.files) {
      expect(f.held, f.path).toBeUndefined();
      expect(fs.statSync(f.tempFile).size, f.path).toBe(f.size);
    }
  });

  it('another account’s zip of the same library stores nothing again and is its site byte for byte, leaving no lease or staging', async () => {
    const library: Record<string, string | Buffer> = {};
    for (let i = 0; i < 40; i++)
      library[`lib/m${i}.js`] = `export const m${i} = ${JSON.stringify(`${i} ${Math.random()}`)};`;
    const first = await uploadProject(t, (await t.createUser()).token, {
      name: '第一个用这个库的站点',
      uploadType: 'zip',
      files: [
        {
          name: 'site.zip',
          content: await makeZip({ 'index.html': '<!doctype html><p>一</p>', ...library }),
        },
      ],
    });
    expect(first.statusCode, first.body).toBe(201);
    const leasesBefore = await t.ctx.db.selectFrom('blob_leases').select('sha256').execute();

    const own = `<!doctype html><p>另一个账号 ${Math.random()}</p>`;
    const putFiles: string[] = [];
    const store = t.ctx.store;
    const putFile = store.putFile.bind(store);
    store.putFile = async (file, sha256) => {
      putFiles.push(sha256);
      return putFile(file, sha256);
    };
    let second: Awaited<ReturnType<typeof uploadProject>>;
    try {
      second = await uploadProject(t, (await t.createUser()).token, {
        name: '第二个用这个库的站点',
        uploadType: 'zip',
        files: [{ name: 'site.zip', content: await makeZip({ 'index.html': own, ...library }) }],
      });
    } finally {
      store.putFile = putFile;
    }
    expect(second.statusCode, second.body).toBe(201);
    // Only the page of its own was new to the store.
    expect(putFiles).toEqual([sha(own)]);
    const v = await versionFiles(second.json().data.project.id as number);
    expect([...v.keys()].sort()).toEqual(['index.html', ...Object.keys(library)].sort());
    for (const [p, c] of Object.entries({ 'index.html': own, ...library })) {
      expect(v.get(p)!.sha256, p).toBe(sha(c));
      expect((await stored(sha(c))).equals(Buffer.from(c)), p).toBe(true);
    }
    expect(await t.ctx.db.selectFrom('blob_leases').select('sha256').execute()).toEqual(leasesBefore);
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
  }, 600_000);
});
