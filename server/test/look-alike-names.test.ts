/**
 * File names that look like other names (docs/decisions/uploads.md "File names"): a zero-width character,
 * a joiner or a bidirectional control makes `index\u200b.html` read as `index.html` and
 * `evil\u202elmth.txt` as `eviltxt.html`. Refused in a zip, among loose files and in a deploy's
 * manifest, with a Chinese message naming the file (its invisible characters spelled out), leaving
 * nothing behind.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { format, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectFailure, listTree, makeZip, type TestApp, uploadProject } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const PAGE = '<!doctype html><title>x</title><p>x</p>';

/** The name, its invisible characters as they appear in the message. */
const NAMES: Array<[string, string]> = [
  ['index\u200b.html', 'index\\u200b.html'],
  ['evil\u202elmth.txt', 'evil\\u202elmth.txt'],
  ['js/app\u200d.js', 'js/app\\u200d.js'],
  ['css\u2066/site.css', 'css\\u2066/site.css'],
  ['img/logo\u00ad.png', 'img/logo\\u00ad.png'],
  ['a\ufeff.html', 'a\\ufeff.html'],
  ['tag\u{e0041}.html', 'tag\\u{e0041}.html'],
];
const refusal = (shown: string) => format(messages.archive.invisibleName, { name: shown });

async function projectsOf(userId: number) {
  return t.ctx.db.selectFrom('projects').select('id').where('owner_id', '=', userId).execute();
}

describe('look-alike file names', () => {
  it.each(NAMES)('are refused inside a zip: %j', async (name, shown) => {
    const user = await t.createUser();
    const zip = await makeZip({ 'index.html': PAGE, [name]: 'x' });
    const res = await uploadProject(t, user.token, { files: [{ name: 'site.zip', content: zip }] });
    expectFailure(res, 400, refusal(shown));
    expect(await projectsOf(user.id)).toEqual([]);
  });

  it.each(NAMES)('are refused among loose files: %j', async (name, shown) => {
    const user = await t.createUser();
    const res = await uploadProject(t, user.token, {
      files: [
        { name: 'site/index.html', content: PAGE },
        { name: `site/${name}`, content: 'x' },
      ],
    });
    expectFailure(res, 400, refusal(`site/${shown}`));
    expect(await projectsOf(user.id)).toEqual([]);
  });

  it.each(NAMES)('are refused in a deploy’s manifest before a byte is sent: %j', async (name, shown) => {
    const user = await t.createUser();
    const res = await t.request({
      method: 'POST',
      url: '/api/deploys',
      token: user.token,
      body: { project_name: '部署', files: { 'index.html': sha(PAGE), [name]: sha('x') } },
    });
    expectFailure(res, 400, refusal(shown));
    expect(
      await t.ctx.db.selectFrom('deploys').select('id').where('user_id', '=', user.id).execute(),
    ).toEqual([]);
  });

  /**
   * Blanks at either end of a name and dots at its end: a page's file list shows ` index.html` as
   * `index.html`, and Windows drops them (a download of the version extracts `css /a.css` into
   * `css`, `index.html.` over `index.html`). Two names that differ only so are one name twice.
   */
  const EDGES: Array<[string, string]> = [
    ['index.html', ' index.html'],
    ['index.html', 'index.html '],
    ['index.html', 'index.html.'],
    ['index.html', 'index.html\u3000'],
    ['css/a.css', 'css /b.css'],
    ['css/a.css', 'CSS. /b.css'],
  ];
  const duplicate = (name: string) => format(messages.archive.duplicateName, { name });

  it.each(EDGES)('%j and %j differ only at an end, and are one name in a zip', async (first, second) => {
    const user = await t.createUser();
    const zip = await makeZip({ [first]: PAGE, [second]: '<p>other</p>' });
    const res = await uploadProject(t, user.token, { files: [{ name: 'site.zip', content: zip }] });
    expectFailure(res, 400, duplicate(second.includes('/') ? second.slice(0, second.indexOf('/')) : second));
    expect(await projectsOf(user.id)).toEqual([]);
  });

  it.each(EDGES)(
    '%j and %j are one name among loose files and in a deploy’s manifest',
    async (first, second) => {
      const user = await t.createUser();
      const folder = second.includes('/') ? second.slice(0, second.indexOf('/')) : second;
      const res = await uploadProject(t, user.token, {
        files: [
          { name: `site/${first}`, content: PAGE },
          { name: `site/${second}`, content: '<p>other</p>' },
        ],
      });
      expectFailure(res, 400, duplicate(`site/${folder}`));
      const deploy = await t.request({
        method: 'POST',
        url: '/api/deploys',
        token: user.token,
        body: { project_name: '部署', files: { [first]: sha(PAGE), [second]: sha('<p>other</p>') } },
      });
      expectFailure(deploy, 400, duplicate(folder));
      expect(await projectsOf(user.id)).toEqual([]);
    },
  );

  it('keep a name with a blank or a dot at an end when no other name is the same without it', async () => {
    const user = await t.createUser();
    const res = await uploadProject(t, user.token, {
      files: [
        { name: 'site/index.html', content: PAGE },
        { name: 'site/notes .txt', content: 'x' },
        { name: 'site/docs /a.txt', content: 'x' },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('leave no staging files behind', async () => {
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
  });

  it('do not refuse visible names in any script', async () => {
    const user = await t.createUser();
    const res = await uploadProject(t, user.token, {
      files: [
        { name: 'site/index.html', content: PAGE },
        {
          name: 'site/图片/标志.png',
          content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        },
        { name: 'site/café-😀.txt', content: 'x' },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
  });
});
