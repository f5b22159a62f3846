/**
 * The connection fast path (serve/fast-connections.ts) answers hot /sites files from a connection's
 * bytes and hands everything else to Node's server. What it sends must be what Node sends, byte for
 * byte but the date; what it does not answer must reach Node whole and in order; and it must close,
 * time out and hold back as Node's server does.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { serveFastConnections } from '../src/serve/fast-connections.js';
import type { SiteFastPath } from '../src/serve/fast-path.js';
import type { PreparedAnswer } from '../src/serve/site-answer.js';
import { createTestApp, listenPort, liveProject, rawRequest, type TestApp } from './helpers.js';
import { CSS, PAGE } from './support/site-files.js';
import { getRequest, Wire } from './support/wire.js';

const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const BIG_PNG = Buffer.concat([PNG_HEAD, Buffer.alloc(512 * 1024 - PNG_HEAD.length, 7)]);

const withoutDate = (head: string) => head.replace(/\r\nDate: [^\r]*/, '');

describe('the connection fast path', () => {
  let t: TestApp;
  let id: number;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ id } = await liveProject(t, [
      { name: 'index.html', content: PAGE },
      { name: 'css/style.css', content: CSS },
      { name: 'img/big.png', content: BIG_PNG },
    ]));
    port = await listenPort(t);
    // Through the route once: bodies and compressed variants in memory.
    for (const path of ['', 'css/style.css', 'img/big.png']) {
      for (const encoding of ['', 'gzip', 'br']) {
        await rawRequest(port, `/sites/${id}/${path}`, { headers: { 'accept-encoding': encoding } });
      }
    }
    await t.ctx.services.siteFiles.idle();
  });
  afterAll(() => t.close());

  const counts = () => ({ ...t.fastPath!.connections });

  it.each([
    ['', {}],
    ['', { 'accept-encoding': 'gzip, deflate, br, zstd', 'user-agent': 'Mozilla/5.0 Chrome/140.0' }],
    ['css/style.css', { 'accept-encoding': 'gzip' }],
    ['css/style.css', { connection: 'keep-alive' }],
    ['img/big.png', { 'accept-encoding': 'br' }],
  ])('answers %s %j with the bytes Node’s server sends, but the date', async (path, headers) => {
    const url = `/sites/${id}/${path}`;
    const before = counts();
    const direct = await Wire.connect(port);
    direct.send(getRequest(url, headers));
    const fast = await direct.answer();
    expect(counts().answered).toBe(before.answered + 1);

    // The same GET after a HEAD, which hands the connection to Node's server.
    const viaNode = await Wire.connect(port);
    viaNode.send(getRequest(url, headers, 'HEAD') + getRequest(url, headers));
    await viaNode.answer('HEAD');
    const node = await viaNode.answer();
    expect(counts()).toEqual({ answered: before.answered + 1, handedOff: before.handedOff + 1 });

    expect(fast.status).toBe(200);
    expect(withoutDate(fast.head)).toBe(withoutDate(node.head));
    expect(fast.head).toMatch(/\r\nDate: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT\r\n/);
    expect(fast.body.equals(node.body)).toBe(true);
    direct.close();
    viaNode.close();
  });

  it('reads every connection into one shared buffer, with no data event, each still answered whole', async () => {
    // Seen from the server: a connection the fast path answers is read into the buffer it shares
    // with every connection, so no 'data' event is ever emitted for it.
    const events = new Map<net.Socket, number>();
    const onConnection = (socket: net.Socket) => {
      events.set(socket, 0);
      socket.on('data', () => events.set(socket, (events.get(socket) ?? 0) + 1));
    };
    t.app.server.on('connection', onConnection);
    try {
      const before = counts();
      // One connection asks for a page, then signs in with a body in the same packet: the
      // sign-in's head and body go to Node's server, whose body is read after hooks that wait on
      // the database, while twenty other connections' requests are read into the same buffer.
      const body = JSON.stringify({ username: 'admin', password: 'not-the-password' });
      const signIn = await Wire.connect(port);
      const others = await Promise.all(Array.from({ length: 20 }, () => Wire.connect(port)));
      signIn.send(
        getRequest(`/sites/${id}/`) +
          `POST /api/auth/login HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      for (const [i, other] of others.entries()) {
        other.send(getRequest(`/sites/${id}/css/style.css`, { 'x-pad': String(i).repeat(body.length) }));
      }
      expect((await signIn.answer()).body.toString()).toBe(PAGE);
      const login = await signIn.answer();
      expect([login.status, JSON.parse(login.body.toString()).message]).toEqual([
        401,
        messages.auth.badCredentials,
      ]);
      for (const other of others) expect((await other.answer()).body.toString()).toBe(CSS);
      expect(counts()).toEqual({ answered: before.answered + 21, handedOff: before.handedOff + 1 });
      // The twenty were answered here without a 'data' event; the handed-off connection's event
      // is the request put back for Node's server.
      const seen = [...events.values()].sort((a, b) => a - b);
      expect(seen).toEqual([...Array.from({ length: 20 }, () => 0), 1]);
      for (const wire of [signIn, ...others]) wire.close();
    } finally {
      t.app.server.removeListener('connection', onConnection);
    }
  });

  it('answers a 304 with the bytes Node’s server sends', async () => {
    const url = `/sites/${id}/css/style.css`;
    const first = await Wire.connect(port);
    first.send(getRequest(url));
    const { headers } = await first.answer();
    const conditional = { 'if-none-match': headers.etag as string };
    first.send(getRequest(url, conditional));
    const fast = await first.answer();
    const viaNode = await Wire.connect(port);
    viaNode.send(getRequest(url, conditional, 'HEAD') + getRequest(url, conditional));
    await viaNode.answer('HEAD');
    const node = await viaNode.answer();
    expect(fast.status).toBe(304);
    expect(withoutDate(fast.head)).toBe(withoutDate(node.head));
    first.close();
    viaNode.close();
  });

  it('hands the connection to Node at the first request it does not answer, every answer in order', async () => {
    const before = counts();
    const wire = await Wire.connect(port);
    const site = `/sites/${id}/`;
    wire.send(
      getRequest(site) +
        getRequest(`${site}css/style.css`) +
        getRequest('/api/projects/public') +
        getRequest(site) +
        `POST ${site} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello` +
        getRequest(site, { range: 'bytes=0-14' }) +
        getRequest(`${site}css/style.css`, {}, 'HEAD') +
        getRequest(`${site}missing.html`),
    );
    expect((await wire.answer()).body.toString()).toBe(PAGE);
    expect((await wire.answer()).body.toString()).toBe(CSS);
    const api = await wire.answer();
    expect(api.status).toBe(200);
    expect(JSON.parse(api.body.toString())).toHaveProperty('data.projects');
    expect((await wire.answer()).body.toString()).toBe(PAGE);
    expect((await wire.answer()).status).toBe(405);
    const range = await wire.answer();
    expect([range.status, range.body.toString()]).toEqual([206, PAGE.slice(0, 15)]);
    const head = await wire.answer('HEAD');
    expect([head.status, head.headers['content-length']]).toEqual([200, String(Buffer.byteLength(CSS))]);
    expect((await wire.answer()).status).toBe(404);
    expect(counts()).toEqual({ answered: before.answered + 2, handedOff: before.handedOff + 1 });
    // Still open and still answered, by Node now.
    wire.send(getRequest(site));
    expect((await wire.answer()).status).toBe(200);
    expect(counts().answered).toBe(before.answered + 2);
    wire.close();
  });

  it('keeps answering on a kept-alive connection until a request is not its own', async () => {
    const before = counts();
    const wire = await Wire.connect(port);
    for (let i = 0; i < 5; i++) {
      wire.send(getRequest(`/sites/${id}/`));
      expect((await wire.answer()).status).toBe(200);
    }
    wire.send(getRequest('/healthz'));
    expect((await wire.answer()).status).toBe(200);
    expect(counts()).toEqual({ answered: before.answered + 5, handedOff: before.handedOff + 1 });
    wire.close();
  });

  it('leaves a head split across packets to Node, which answers it whole', async () => {
    const before = counts();
    const wire = await Wire.connect(port);
    const request = getRequest(`/sites/${id}/css/style.css`);
    wire.send(request.slice(0, 20));
    // The fast path reads the first piece, finds no whole head and hands the connection over.
    await expect.poll(() => counts().handedOff).toBe(before.handedOff + 1);
    wire.send(request.slice(20));
    const answer = await wire.answer();
    expect([answer.status, answer.body.toString()]).toEqual([200, CSS]);
    expect(counts().handedOff).toBe(before.handedOff + 1);
    wire.close();
  });

  it('leaves what Node refuses to Node: a malformed head gets the error envelope and a close', async () => {
    const wire = await Wire.connect(port);
    wire.send(`${getRequest(`/sites/${id}/`)}GET /sites/${id}/ HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`);
    expect((await wire.answer()).status).toBe(200);
    const refused = await wire.answer();
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body.toString()).message).toMatch(/[\u4e00-\u9fff]/);
    await wire.closedByServer();
  });

  it('closes after the answer when the client asks it to, as Node does', async () => {
    const wire = await Wire.connect(port);
    wire.send(getRequest(`/sites/${id}/`, { connection: 'close' }));
    const answer = await wire.answer();
    expect(answer.headers.connection).toBe('close');
    await wire.closedByServer();
  });

  it('answers a client that stops sending only once it has read what it asked for, then closes', async () => {
    const wire = await Wire.connect(port);
    wire.send(getRequest(`/sites/${id}/`).repeat(3));
    wire.socket.end();
    for (let i = 0; i < 3; i++) expect((await wire.answer()).status).toBe(200);
    await wire.closedByServer();
  });

  it('hands a pipelining client to Node once its answers fill the socket’s buffer, every answer still sent', async () => {
    const before = { ...counts(), served: t.fastPath!.served };
    const wire = await Wire.connect(port);
    wire.socket.pause();
    const n = 300;
    wire.send(getRequest(`/sites/${id}/img/big.png`).repeat(n));
    // The first 512 KB answer filled the socket's buffer: the rest went to Node's server, whose
    // pipelining queue and back-pressure take it from there.
    await expect.poll(() => counts().handedOff).toBe(before.handedOff + 1);
    expect(counts()).toEqual({ answered: before.answered + 1, handedOff: before.handedOff + 1 });
    wire.socket.resume();
    for (let i = 0; i < n; i++) {
      const answer = await wire.answer();
      expect(answer.body.equals(BIG_PNG)).toBe(true);
    }
    expect(t.fastPath!.served).toBe(before.served + n);
    wire.close();
  });

  it('answers every request of a client that half-closes while not reading, then closes', async () => {
    const before = counts();
    const wire = await Wire.connect(port);
    wire.socket.pause();
    wire.send(
      getRequest(`/sites/${id}/img/big.png`).repeat(30) +
        getRequest(`/sites/${id}/css/style.css`, {}, 'HEAD'),
    );
    wire.socket.end();
    // The first answer fills the socket's buffer and Node's server takes the rest, the end of the
    // client's side included, while the client still reads nothing.
    await expect.poll(() => counts().handedOff).toBe(before.handedOff + 1);
    wire.socket.resume();
    for (let i = 0; i < 30; i++) expect((await wire.answer()).body.length).toBe(BIG_PNG.length);
    expect((await wire.answer('HEAD')).status).toBe(200);
    await wire.closedByServer();
  });

  it('answers requests still being handled when a client half-closes, then closes', async () => {
    // A sign-in is answered once its password hash is checked on the thread pool, long after the
    // client's end has been read: Node's server, left to its default, closes at that end unanswered.
    const body = JSON.stringify({ username: 'admin', password: 'not-the-password' });
    const wire = await Wire.connect(port);
    wire.send(
      getRequest(`/sites/${id}/css/style.css`, {}, 'HEAD') +
        `POST /api/auth/login HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    wire.socket.end();
    expect((await wire.answer('HEAD')).status).toBe(200);
    const login = await wire.answer();
    expect(login.status).toBe(401);
    expect(JSON.parse(login.body.toString()).message).toBe(messages.auth.badCredentials);
    await wire.closedByServer();
  });
});

/** `server` behind a fast path that answers every request it reads with "fast", listening. */
async function answerFast(server: http.Server): Promise<{ path: SiteFastPath; port: number }> {
  const answered: PreparedAnswer = {
    status: 200,
    headers: ['content-length', '4'],
    body: Buffer.from('fast'),
  };
  const path = {
    answer: () => answered,
    onServed: undefined,
    connections: { answered: 0, handedOff: 0 },
  } as unknown as SiteFastPath;
  serveFastConnections(server, () => path);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { path, port: (server.address() as AddressInfo).port };
}

describe('the connection fast path on a server with a smaller header limit', () => {
  it('leaves heads over half the limit to Node, which refuses them', async () => {
    const server = http.createServer({ maxHeaderSize: 2000 }, (_req, res) => res.end('node'));
    const { path, port } = await answerFast(server);
    try {
      const small = await Wire.connect(port);
      small.send(getRequest('/', { 'x-pad': 'a'.repeat(900) }));
      expect((await small.answer()).body.toString()).toBe('fast');
      const large = await Wire.connect(port);
      large.send(getRequest('/', { 'x-pad': 'a'.repeat(2100) }));
      expect((await large.answer()).status).toBe(431);
      expect(path.connections).toEqual({ answered: 1, handedOff: 1 });
      small.close();
      large.close();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the connection fast path’s one read buffer', () => {
  it('gives Node copies of what it hands over and of what Node reads once it lets go of the socket', async () => {
    // An upgrade is handed to Node's server, whose parser then lets go of the socket: the bytes put
    // back (the upgrade's head and what followed it) and the socket's later reads are kept by the
    // handler, read only after another connection's request has been read into the same buffer.
    let otherAnswered: () => void = () => {};
    const answeredOther = new Promise<void>((r) => {
      otherAnswered = r;
    });
    const server = http.createServer((_req, res) => res.end('node'));
    // Node's parser lets go of an upgraded socket: its later reads are the stream's again, kept in
    // its buffer until the handler reads them (Node leaves it neither flowing nor paused).
    let upgradedSocket: net.Socket | undefined;
    server.on('upgrade', (_req, socket: net.Socket, head: Buffer) => {
      upgradedSocket = socket;
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
      void answeredOther.then(() => {
        const chunks = [head];
        socket.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          const all = Buffer.concat(chunks).toString('latin1');
          if (all.endsWith('.')) socket.end(all);
        });
      });
    });
    const { path, port } = await answerFast(server);
    try {
      // What follows the upgrade's head in the same packet is the handler's `head`.
      const first = randomBytes(300).toString('hex');
      const upgraded = await Wire.connect(port);
      upgraded.send(
        `${getRequest('/')}GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n${first}`,
      );
      expect((await upgraded.answer()).body.toString()).toBe('fast');
      const switched = await upgraded.answer();
      expect(switched.status).toBe(101);
      // Sent after the switch: read into the shared buffer, then kept in the socket's own.
      const payload = `${randomBytes(700).toString('hex')}.`;
      upgraded.send(payload);
      while ((upgradedSocket?.readableLength ?? 0) < payload.length)
        await new Promise((r) => setImmediate(r));
      const other = await Wire.connect(port);
      other.send(getRequest('/', { 'x-pad': 'z'.repeat(1500) }));
      expect((await other.answer()).body.toString()).toBe('fast');
      otherAnswered();
      await upgraded.closedByServer();
      expect(upgraded.rest().toString('latin1')).toBe(first + payload);
      expect(path.connections).toEqual({ answered: 2, handedOff: 1 });
      other.close();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the connection fast path as the server closes or times out', () => {
  const timeouts = { ...loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp' }).timeouts };

  /**
   * One answer of `url`, which makes it hot. With timeouts of 300 ms a loaded machine can leave the
   * connection quiet for longer before its first byte, and the server then ends it ("socket hang
   * up", a CI run at load 8–12): that is not what these tests look at, so it is asked again.
   */
  const warm = (port: number, url: string) =>
    expect
      .poll(() =>
        rawRequest(port, url).then(
          (r) => r.status,
          () => 0,
        ),
      )
      .toBe(200);

  async function siteApp(overrides: Parameters<typeof createTestApp>[0] = {}) {
    const t = await createTestApp(overrides);
    const { id } = await liveProject(t, [{ name: 'index.html', content: PAGE }]);
    const port = await listenPort(t);
    await warm(port, `/sites/${id}/`);
    return { t, url: `/sites/${id}/`, port };
  }

  it('closes its idle connections when the app closes, so closing does not wait for them', async () => {
    const { t, url, port } = await siteApp();
    const wire = await Wire.connect(port);
    wire.send(getRequest(url));
    expect((await wire.answer()).status).toBe(200);
    expect(t.fastPath!.connections.answered).toBe(1);
    // Keep-alive is 72 s: without closing it, close would wait that long (past the test timeout).
    await t.close();
    await wire.closedByServer();
  });

  it('closes, when the app closes, a connection whose client is not reading after the idle timeout', async () => {
    const t = await createTestApp({ timeouts: { ...timeouts, idle: 300 } });
    const { id } = await liveProject(t, [
      { name: 'index.html', content: PAGE },
      { name: 'big.png', content: BIG_PNG },
    ]);
    const port = await listenPort(t);
    await warm(port, `/sites/${id}/big.png`);
    const wire = await Wire.connect(port);
    wire.socket.pause();
    wire.send(getRequest(`/sites/${id}/big.png`).repeat(50));
    await expect.poll(() => t.fastPath!.connections.answered).toBeGreaterThan(0);
    // Answers are waiting to be read: the connection is not idle, and its client does not read.
    await t.close();
    wire.socket.resume();
    await wire.closedByServer();
  });

  it('closes, when the app closes, a connection whose answer was still being sent, once it is sent', async () => {
    // Node closes idle connections once, as the close begins; this one was busy then, and became
    // idle only afterwards: it was left open for the keep-alive timeout (72 s), and the close with it.
    const t = await createTestApp();
    const size = 24 * 1024 * 1024;
    const { id } = await liveProject(t, [
      { name: 'index.html', content: PAGE },
      { name: 'big.bin', content: randomBytes(size) },
    ]);
    const port = await listenPort(t);
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    let received = 0;
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
    const first = new Promise((resolve) => socket.once('data', resolve));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    // Streamed by Node's server (not hot), and more than the sockets' buffers hold: it waits for
    // the client to read.
    socket.write(`GET /sites/${id}/big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await first;
    socket.pause();
    const closing = t.close();
    await expect.poll(() => t.app.server.listening).toBe(false);
    socket.resume();
    await expect.poll(() => received, { timeout: 60_000 }).toBeGreaterThan(size);
    const sent = performance.now();
    // Closed by the server once the answer is sent, not a keep-alive timeout later.
    expect((await closed) - sent).toBeLessThan(20_000);
    await closing;
  });

  it('closes a connection idle for keepAliveTimeout after an answer, and a silent one after headersTimeout', async () => {
    const { t, url, port } = await siteApp({ timeouts: { ...timeouts, keepAlive: 300, headers: 300 } });
    const answered = await Wire.connect(port);
    answered.send(getRequest(url));
    const answer = await answered.answer();
    expect(answer.headers['keep-alive']).toBe('timeout=0');
    const silent = await Wire.connect(port);
    await Promise.all([answered.closedByServer(), silent.closedByServer()]);
    expect(t.fastPath!.connections.answered).toBe(1);
    await t.close();
  });
});
