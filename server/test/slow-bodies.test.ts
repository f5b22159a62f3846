/**
 * Request bodies sent slowly (docs/security.md "Operations"): a body that is not an
 * upload stream must arrive within the body deadline, and an answer sent before its body has
 * arrived closes the connection. Before, a byte every 20 s kept a login (or an anonymous upload's
 * 401) reading for the 10-minute request timeout, and 20,000 such connections stopped the server.
 * Real sockets.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, listenPort, rawRequest, type TestApp } from './helpers.js';
import { Wire } from './support/wire.js';

const BODY_DEADLINE_MS = 1500;

/** A deploy of one page started by a new account: its id, the page's bytes and hash, the token. */
async function startDeploy(t: TestApp, name: string, page: string) {
  const user = await t.createUser();
  const content = Buffer.from(page);
  const hash = createHash('sha256').update(content).digest('hex');
  const started = await t.request({
    method: 'POST',
    url: '/api/deploys',
    token: user.token,
    body: { project_name: name, files: { 'index.html': hash } },
  });
  expect(started.statusCode, started.body).toBe(201);
  const { deploy_id } = started.json().data as { deploy_id: string };
  return { deployId: deploy_id, content, hash, token: user.token };
}

/** An app whose log lines (JSON) the test reads. */
async function loggedApp(overrides: Parameters<typeof createTestApp>[0]) {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const t = await createTestApp({ logFormat: 'json', ...overrides }, { logStream: stream });
  return { t, lines };
}

describe('slow request bodies', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    const timeouts = {
      ...loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp' }).timeouts,
      body: BODY_DEADLINE_MS,
    };
    t = await createTestApp({ timeouts });
    port = await listenPort(t);
  });
  afterAll(() => t?.close());

  it('answers a login body trickled byte by byte 408 at the body deadline and closes it; others are served', async () => {
    const holders = await Promise.all(Array.from({ length: 3 }, () => Wire.connect(port)));
    const started = performance.now();
    for (const wire of holders) {
      wire.send(
        'POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          'Content-Length: 100000\r\n\r\n{"username":"',
      );
    }
    // A byte on each connection every 100 ms: never idle, never whole.
    const trickle = setInterval(() => {
      for (const wire of holders) if (!wire.closed) wire.send('a');
    }, 100);
    try {
      let served = 0;
      while (holders.some((w) => !w.closed)) {
        expect((await rawRequest(port, '/healthz')).status).toBe(200);
        served++;
      }
      expect(served).toBeGreaterThan(0);
    } finally {
      clearInterval(trickle);
    }
    // Closed at the deadline, not at the request timeout (10 minutes) nor when the body ends.
    expect(performance.now() - started).toBeGreaterThanOrEqual(BODY_DEADLINE_MS - 50);
    for (const wire of holders) {
      const answer = await wire.answer('POST');
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body.toString())).toEqual({
        success: false,
        message: messages.common.timeout,
      });
    }
  });

  it('still takes a JSON body that arrives in time, in pieces', async () => {
    const wire = await Wire.connect(port);
    const body = JSON.stringify({ username: 'nobody', password: 'not-the-password' });
    wire.send(
      `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    for (const piece of [body.slice(0, 10), body.slice(10, 30), body.slice(30)]) wire.send(piece);
    const answer = await wire.answer('POST');
    expect(answer.status).toBe(401);
    wire.close();
  });

  it('leaves a deploy’s file PUT alone past the deadline, whatever type it is sent as (curl’s default form type)', async () => {
    const {
      deployId,
      content: bytes,
      hash,
      token,
    } = await startDeploy(t, '慢速部署', '<!doctype html><p>慢慢上传</p>\n'.repeat(40));
    const wire = await Wire.connect(port);
    wire.send(
      `PUT /api/deploys/${deployId}/files/${hash} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${token}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
        `Content-Length: ${bytes.length}\r\n\r\n`,
    );
    // Half now, the rest once the body deadline has passed.
    wire.send(bytes.subarray(0, 100));
    const sent = performance.now();
    await expect
      .poll(() => performance.now() - sent, { timeout: BODY_DEADLINE_MS * 4 })
      .toBeGreaterThan(BODY_DEADLINE_MS * 1.5);
    expect(wire.closed).toBe(false);
    wire.send(bytes.subarray(100));
    const answer = await wire.answer('PUT');
    expect(answer.status, answer.body.toString()).toBe(200);
    wire.close();
  });

  it('closes the connection of an answer sent before its body: an anonymous upload’s 401, a batch’s', async () => {
    for (const [method, head] of [
      [
        'PUT',
        `PUT /api/deploys/whatever/files/${'a'.repeat(64)} HTTP/1.1\r\nContent-Type: application/octet-stream`,
      ],
      ['POST', 'POST /api/deploys/whatever/files HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=x'],
    ] as const) {
      const wire = await Wire.connect(port);
      wire.send(`${head}\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\nsome bytes`);
      const answer = await wire.answer(method);
      expect(answer.status).toBe(401);
      expect(answer.headers.connection).toBe('close');
      // Closed by the server although 999,990 bytes were promised and the client keeps the socket.
      await wire.closedByServer();
    }
  });
});

describe('requests made in the process (app.inject)', () => {
  it('are left alone by the body deadline: no socket to close, nothing thrown when it passes', async () => {
    const timeouts = { ...loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp' }).timeouts, body: 50 };
    const t = await createTestApp({ timeouts });
    try {
      // A body the route never reads (refused before), then the deadline three times over: an
      // exception thrown from its timer would fail this file (Vitest reports it).
      const res = await t.request({
        method: 'PUT',
        url: `/api/deploys/x/files/${'a'.repeat(64)}`,
        payload: 'bytes',
      });
      expect(res.statusCode).toBe(401);
      const login = await t.request({
        method: 'POST',
        url: '/api/auth/login',
        body: { username: 'a', password: 'b' },
      });
      expect(login.statusCode).toBe(401);
      expect(login.headers.connection).not.toBe('close');
      await new Promise((resolve) => setTimeout(resolve, 150));
    } finally {
      await t.close();
    }
  });
});

describe('a client that goes away halfway through its body', () => {
  it('is logged as gone, not as a database outage (its ECONNRESET is no lost database connection)', async () => {
    const { t, lines } = await loggedApp({ logLevel: 'debug' });
    try {
      const port = await listenPort(t);
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        'POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          'Content-Length: 1000\r\n\r\n{"username":"',
      );
      await expect.poll(() => lines.some((l) => l.includes('"url":"/api/auth/login"'))).toBe(true);
      socket.resetAndDestroy();
      await expect.poll(() => lines.some((l) => l.includes('client went away'))).toBe(true);
      expect(lines.filter((l) => l.includes('database unavailable'))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('a client gone while its signed-in request waits on the database', () => {
  it('is no error in the log: the rate limiter keys a request whose address is gone', async () => {
    // The server's own socket is closed as the request comes in (after the sign-in check began, before
    // the rate limiter runs), as when the client resets its connection: then the request has no
    // address. Each answer's end is counted, whether or not a socket is left to take it.
    let ended = 0;
    // Node's own connection handling (the sites fast path reads each connection's address at once).
    const { t, lines } = await loggedApp({ logLevel: 'info', sitesFastPath: false });
    try {
      const port = await listenPort(t);
      const token = (await t.createUser()).token;
      t.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        if (req.headers['x-gone'] === undefined) return;
        const end = res.end.bind(res);
        res.end = ((...args: Parameters<typeof res.end>) => {
          ended++;
          return end(...args);
        }) as typeof res.end;
        req.socket.destroy();
      });
      const gone = 5;
      for (let i = 0; i < gone; i++) {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(
          `GET /api/projects/my HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Gone: 1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
        );
      }
      await expect.poll(() => ended).toBe(gone);
      expect(lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50)).toEqual([]);
      // The server goes on answering.
      expect((await t.request({ url: '/api/projects/my', token })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('a deploy’s file body trickled', () => {
  it('is answered 408 at the upload idle limit and closed; the file can be sent again', async () => {
    const { t, lines } = await loggedApp({ uploadIdleTimeoutMs: 800 });
    try {
      const port = await listenPort(t);
      const { deployId, content, hash, token } = await startDeploy(
        t,
        '涓滴部署',
        '<!doctype html><p>一点一点</p>\n'.repeat(40),
      );
      const put = `PUT /api/deploys/${deployId}/files/${hash} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${content.length}\r\n\r\n`;

      const wire = await Wire.connect(port);
      wire.send(put);
      // A byte every 100 ms: under 1 KiB a minute (14 bytes in the 800 ms window).
      let at = 0;
      const drip = setInterval(() => {
        if (!wire.closed && at < content.length) wire.send(content.subarray(at, ++at));
      }, 100);
      try {
        const answer = await wire.answer('PUT');
        expect(answer.status).toBe(408);
        await wire.closedByServer();
      } finally {
        clearInterval(drip);
      }

      const again = await Wire.connect(port);
      again.send(Buffer.concat([Buffer.from(put), content]));
      expect((await again.answer('PUT')).status).toBe(200);
      again.close();
      expect(lines.filter((l) => l.includes('"level":50'))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
