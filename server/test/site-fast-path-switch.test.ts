/**
 * The /sites fast paths can be turned off (SITES_FAST_PATH=off), and an app on a Node that lacks
 * the internals the connection fast path stands on says so at start and runs without it. Either
 * way the answers are the same: what the Fastify route answers (serve/site-answer.ts decides them
 * for every writer).
 */
import type http from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, listenPort, liveProject, rawRequest, type TestApp } from './helpers.js';
import { CSS, PAGE } from './support/site-files.js';

/** Headers that say something about the connection or the moment, not about the answer. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
function answerHeaders(headers: Record<string, unknown>, skip: readonly string[] = []) {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => !TRANSPORT.has(name) && !skip.includes(name))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

const FILES = [
  { name: 'index.html', content: PAGE },
  { name: 'css/style.css', content: CSS },
  { name: 'notes.md', content: '# 笔记' },
];

/** Requests the fast paths answer when on: plain GETs of hot files, conditional ones too. */
const REQUESTS: Array<[string, Record<string, string>]> = [
  ['', {}],
  ['index.html', { 'accept-encoding': 'gzip, deflate, br, zstd' }],
  ['css/style.css', { 'accept-encoding': 'gzip' }],
  ['css/style.css', {}],
  ['notes.md', {}],
];

/** Node's own handler of new connections: still on the server when no fast path took its place. */
const nodeListens = (server: http.Server) =>
  server.listeners('connection').some((l) => l.name === 'connectionListener');

async function warm(t: TestApp, port: number, id: number) {
  for (const [path, headers] of REQUESTS) await rawRequest(port, `/sites/${id}/${path}`, { headers });
  await t.ctx.services.siteFiles.idle();
}

describe('SITES_FAST_PATH=off', () => {
  let on: TestApp;
  let off: TestApp;
  let onSite: { id: number; port: number };
  let offSite: { id: number; port: number };
  beforeAll(async () => {
    on = await createTestApp();
    off = await createTestApp({ sitesFastPath: false });
    onSite = { id: (await liveProject(on, FILES)).id, port: await listenPort(on) };
    offSite = { id: (await liveProject(off, FILES)).id, port: await listenPort(off) };
    await warm(on, onSite.port, onSite.id);
    await warm(off, offSite.port, offSite.id);
  });
  afterAll(async () => {
    await on?.close();
    await off?.close();
  });

  it('is read from the environment, on unless set off', async () => {
    const { loadConfig } = await import('../src/config.js');
    const base = { NODE_ENV: 'test', DATA_DIR: '/tmp' };
    expect(loadConfig(base).sitesFastPath).toBe(true);
    expect(loadConfig({ ...base, SITES_FAST_PATH: 'off' }).sitesFastPath).toBe(false);
    expect(() => loadConfig({ ...base, SITES_FAST_PATH: 'maybe' })).toThrow(/SITES_FAST_PATH/);
  });

  it('answers every request through Fastify, with the answers the fast paths give', async () => {
    expect(off.fastPath).toBeNull();
    expect(off.fastPathStatus).toBe('off');
    // No connection fast path in front of Node's server.
    expect(nodeListens(off.app.server)).toBe(true);
    expect(nodeListens(on.app.server)).toBe(false);
    for (const [path, headers] of REQUESTS) {
      const served = on.fastPath!.served;
      const fast = await rawRequest(onSite.port, `/sites/${onSite.id}/${path}`, { headers });
      expect(on.fastPath!.served, `${path} on: the fast path answered`).toBe(served + 1);

      const url = `/sites/${offSite.id}/${path}`;
      const viaSocket = await rawRequest(offSite.port, url, { headers });
      const viaFastify = await off.request({ url, headers });
      // Over a socket the off app answers as Fastify does, header for header and byte for byte.
      expect(viaSocket.status).toBe(viaFastify.statusCode);
      expect(answerHeaders(viaSocket.headers)).toEqual(answerHeaders(viaFastify.headers));
      expect(viaSocket.body.equals(viaFastify.rawPayload)).toBe(true);
      // And as the fast path of the app that has it: the same file, headers and bytes (the two
      // sites went live at different moments: Last-Modified differs, nothing else).
      expect(viaSocket.status, path).toBe(fast.status);
      expect(answerHeaders(viaSocket.headers, ['last-modified']), path).toEqual(
        answerHeaders(fast.headers, ['last-modified']),
      );
      expect(viaSocket.body.equals(fast.body), path).toBe(true);
      // A revalidation: 304 from both.
      const etag = String(viaSocket.headers.etag);
      const again = await rawRequest(offSite.port, url, { headers: { ...headers, 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(answerHeaders(again.headers)).toEqual(
        answerHeaders((await off.request({ url, headers: { ...headers, 'if-none-match': etag } })).headers),
      );
    }
  });

  it('says so in /readyz', async () => {
    expect((await off.request({ url: '/readyz' })).json().detail).toMatchObject({ fastPath: 'off' });
    expect((await on.request({ url: '/readyz' })).json().detail).toMatchObject({ fastPath: 'on' });
  });
});

describe('a Node without the internals the connection fast path needs', () => {
  let t: TestApp;
  let id: number;
  let port: number;
  const lines: Array<{ level: number; msg: string }> = [];
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
        done();
      },
    });
    t = await createTestApp(
      { logLevel: 'warn' },
      {
        logStream: stream,
        // As a Node version that renamed its connection handler would look: the same handling,
        // under another name.
        alterServer: (server) => {
          const node = server.listeners('connection').find((l) => l.name === 'connectionListener') as (
            this: http.Server,
            socket: unknown,
          ) => void;
          server.removeListener('connection', node);
          server.on('connection', function handleConnection(this: http.Server, socket) {
            node.call(this, socket);
          });
        },
      },
    );
    ({ id } = await liveProject(t, FILES));
    port = await listenPort(t);
    await warm(t, port, id);
  });
  afterAll(() => t?.close());

  it('says so once at start, in the log and in /readyz', async () => {
    const warnings = lines.filter((l) => l.level === 40 && /connection fast path off/.test(l.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/connectionListener/);
    expect(t.fastPathStatus).toBe('degraded');
    expect((await t.request({ url: '/readyz' })).json().detail).toMatchObject({ fastPath: 'degraded' });
  });

  it('serves the same answers without it: by the request-level fast path, none from connections', async () => {
    for (const [path, headers] of REQUESTS) {
      const url = `/sites/${id}/${path}`;
      const served = t.fastPath!.served;
      const viaSocket = await rawRequest(port, url, { headers });
      expect(t.fastPath!.served, path).toBe(served + 1);
      const viaFastify = await t.request({ url, headers });
      expect(viaSocket.status).toBe(viaFastify.statusCode);
      expect(answerHeaders(viaSocket.headers)).toEqual(answerHeaders(viaFastify.headers));
      expect(viaSocket.body.equals(viaFastify.rawPayload)).toBe(true);
    }
    expect(t.fastPath!.connections).toEqual({ answered: 0, handedOff: 0 });
  });
});
