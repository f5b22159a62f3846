/**
 * Zip downloads of a project held open by one account (docs/security.md "Uploads and projects"):
 * each compresses its text on the zlib threads every upload and site read shares, so an account may
 * have DOWNLOADS_IN_FLIGHT_MAX at once; the next is 429 with a Chinese message, other accounts are
 * not affected, and a download that ends (here: cut off by the client) gives its place back.
 * Real sockets: the downloads must stay open, unread.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { DOWNLOADS_IN_FLIGHT_MAX, format, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, listenPort, liveProject, type TestApp } from './helpers.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await createTestApp();
  port = await listenPort(t);
});
afterAll(() => t?.close());

/** A download whose body the test does not read: resolves with the status once the head is in. */
function openDownload(projectId: number, token: string) {
  const req = http.get({
    host: '127.0.0.1',
    port,
    path: `/api/projects/${projectId}/download`,
    agent: false,
    headers: { authorization: `Bearer ${token}` },
  });
  req.on('error', () => undefined);
  const answer = new Promise<{ status: number; body: () => Promise<string>; res: http.IncomingMessage }>(
    (resolve, reject) => {
      req.on('response', (res) => {
        res.pause();
        resolve({
          status: res.statusCode ?? 0,
          res,
          body: async () => {
            res.setEncoding('utf8');
            let text = '';
            for await (const chunk of res) text += chunk;
            return text;
          },
        });
      });
      req.on('error', reject);
    },
  );
  return { req, answer };
}

describe('zip downloads held open', () => {
  it(`lets one account run ${DOWNLOADS_IN_FLIGHT_MAX} at once, refuses the next with 429, and frees a place when one ends`, async () => {
    // Text that hardly compresses: the zip is megabytes, far more than the sockets buffer.
    const big = randomBytes(6 * 1024 * 1024).toString('base64');
    const { id, owner } = await liveProject(t, [
      { name: 'index.html', content: '<!doctype html><title>大</title><p>x</p>' },
      { name: 'data/big.css', content: `/* ${big} */` },
    ]);
    const held = [];
    for (let i = 0; i < DOWNLOADS_IN_FLIGHT_MAX; i++) {
      const d = openDownload(id, owner.token);
      expect((await d.answer).status).toBe(200);
      held.push(d);
    }
    const refused = await openDownload(id, owner.token).answer;
    expect(refused.status).toBe(429);
    expect(Number(refused.res.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(await refused.body()).message).toBe(
      format(messages.project.tooManyDownloads, { n: DOWNLOADS_IN_FLIGHT_MAX }),
    );

    // Another account is not held up by them.
    const other = await liveProject(t);
    const theirs = openDownload(other.id, other.owner.token);
    expect((await theirs.answer).status).toBe(200);
    theirs.req.destroy();

    // One cut off by its client: its place is given back once the server sees it closed.
    held.pop()!.req.destroy();
    for (;;) {
      const next = openDownload(id, owner.token);
      const answer = await next.answer;
      if (answer.status === 200) {
        next.req.destroy();
        break;
      }
      expect(answer.status).toBe(429);
      await answer.body();
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const d of held) d.req.destroy();
  });
});
