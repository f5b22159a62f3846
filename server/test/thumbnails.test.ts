/**
 * Public pictures are revalidated before each use, so a takedown or a project made private
 * recalls them from every cache (docs/render.md "Pictures"). The picture is written on the version
 * directly: what is tested is how it is served, not how it is rendered (render.test.ts).
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, review, SIMPLE_SITE, type TestApp, uploadProject } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A live, public project whose live version has a picture; returns its URL. */
async function livePicture(name: string) {
  const owner = await t.createUser();
  const up = await uploadProject(t, owner.token, { name, files: SIMPLE_SITE });
  const id = up.json().data.project.id as number;
  expect((await review(t, id, 'approve')).statusCode).toBe(200);
  const blob = await t.ctx.store.put(Readable.from([Buffer.from(`RIFF-picture-${name}`)]));
  await t.ctx.db
    .updateTable('deployments')
    .set({ thumbnail_sha256: blob.sha256 })
    .where('project_id', '=', id)
    .execute();
  return { id, owner, url: `/api/thumbnails/${blob.sha256}.webp` };
}

describe('public pictures', () => {
  it('are revalidated before each use: 304 while shown, with their ETag', async () => {
    const { url } = await livePicture('看得见的图');
    const first = await t.request({ url });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('public, no-cache');
    expect(first.headers['cache-control']).not.toContain('immutable');
    const again = await t.request({ url, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('are no longer served once taken down, even to a cache that asks with its ETag', async () => {
    const { id, url } = await livePicture('要下线的图');
    const first = await t.request({ url });
    expect(first.statusCode).toBe(200);
    expect((await review(t, id, 'takedown', '违规内容')).statusCode).toBe(200);
    const asks: Array<Record<string, string>> = [{}, { 'if-none-match': String(first.headers.etag) }];
    for (const headers of asks) {
      const gone = await t.request({ url, headers });
      expect(gone.statusCode).toBe(404);
      expect(gone.headers['cache-control']).toBe('no-store');
    }
  });

  it('are no longer public once the project is made private: its owner still sees it, not cached for others', async () => {
    const { id, owner, url } = await livePicture('改为私有的图');
    expect((await t.request({ url })).statusCode).toBe(200);
    const made = await t.request({
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: owner.token,
      body: { is_public: false },
    });
    expect(made.statusCode, made.body).toBe(200);
    const gone = await t.request({ url });
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['cache-control']).toBe('no-store');
    const own = await t.request({ url, token: owner.token });
    expect(own.statusCode).toBe(200);
    expect(own.headers['cache-control']).toBe('private, no-cache');
    expect(own.headers.vary).toContain('authorization');
  });
});
