import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRequestHead } from './request-head.js';

const read = (text: string, start = 0) => readRequestHead(text, start, 8192);
const CHROME = [
  'GET /sites/12/css/app.css?v=3 HTTP/1.1',
  'Host: localhost:3000',
  'Connection: keep-alive',
  'sec-ch-ua-platform: "Linux"',
  'User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  'Accept: text/css,*/*;q=0.1',
  'Sec-Fetch-Site: same-origin',
  'Referer: http://localhost:3000/sites/12/',
  'Accept-Encoding: gzip, deflate, br, zstd',
  'Accept-Language: zh-CN,zh;q=0.9',
  'If-None-Match: "4a091f29c06513f1e62e6c1a65884c75-br"',
  'If-Modified-Since: Mon, 23 Nov 2026 21:17:14 GMT',
  '',
  '',
].join('\r\n');

describe('readRequestHead', () => {
  it('reads a browser’s GET: URL, host and the headers that shape the answer', () => {
    expect(read(CHROME)).toEqual({
      end: CHROME.length,
      url: '/sites/12/css/app.css?v=3',
      host: 'localhost:3000',
      acceptEncoding: 'gzip, deflate, br, zstd',
      ifNoneMatch: '"4a091f29c06513f1e62e6c1a65884c75-br"',
      ifModifiedSince: 'Mon, 23 Nov 2026 21:17:14 GMT',
      userAgent:
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
      purpose: undefined,
      referer: 'http://localhost:3000/sites/12/',
    });
  });

  it('reads pipelined requests one after another, from where the last ended', () => {
    const two =
      'GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nhost: h\r\nSec-Purpose: prefetch\r\n\r\n';
    const first = read(two);
    expect(first?.url).toBe('/a');
    const second = read(two, first!.end);
    expect(second).toMatchObject({ url: '/b', purpose: 'prefetch', end: two.length });
  });

  it('trims blanks around a value as Node does, and keeps an empty one', () => {
    expect(read('GET / HTTP/1.1\r\nHost:h\r\nAccept-Encoding: \t gzip \t\r\n\r\n')).toMatchObject({
      host: 'h',
      acceptEncoding: 'gzip',
    });
    expect(read('GET / HTTP/1.1\r\nHost: h\r\nAccept-Encoding:\r\n\r\n')?.acceptEncoding).toBe('');
  });

  it('reads an adversarial head in one pass (backtracking would take minutes on each)', () => {
    const blanks = ' '.repeat(8000);
    const lines: Array<[string, boolean]> = [
      [`X:${blanks}\0`, false],
      [`X:${blanks}\rb`, false],
      [`X: a${blanks}b`, true],
      [`X:${'\t '.repeat(4000)}`, true],
    ];
    for (let i = 0; i < 50; i++) {
      for (const [line, accepted] of lines) {
        const head = read(`GET / HTTP/1.1\r\nHost: a\r\n${line}\r\n\r\n`);
        expect(head !== null).toBe(accepted);
      }
    }
  });

  it.each([
    ['an incomplete head', 'GET / HTTP/1.1\r\nHost: h\r\n'],
    ['another method', 'HEAD / HTTP/1.1\r\nHost: h\r\n\r\n'],
    ['a lower-case method', 'get / HTTP/1.1\r\nHost: h\r\n\r\n'],
    ['HTTP/1.0', 'GET / HTTP/1.0\r\nHost: h\r\n\r\n'],
    ['an absolute URL', 'GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n'],
    ['an asterisk', 'GET * HTTP/1.1\r\nHost: h\r\n\r\n'],
    ['two spaces', 'GET  / HTTP/1.1\r\nHost: h\r\n\r\n'],
    ['a byte above 0x7E in the URL', 'GET /\xe4 HTTP/1.1\r\nHost: h\r\n\r\n'],
    ['no Host', 'GET / HTTP/1.1\r\nAccept: */*\r\n\r\n'],
    ['two Hosts', 'GET / HTTP/1.1\r\nHost: h\r\nHost: g\r\n\r\n'],
    ['a body length', 'GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n'],
    ['a chunked body', 'GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n'],
    ['a range', 'GET / HTTP/1.1\r\nHost: h\r\nRange: bytes=0-1\r\n\r\n'],
    ['an upgrade', 'GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n'],
    ['Connection: close', 'GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n'],
    ['an expectation', 'GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n'],
    ['a folded line', 'GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: a\r\n b\r\n\r\n'],
    ['a blank before the colon', 'GET / HTTP/1.1\r\nHost : h\r\n\r\n'],
    ['a bare LF', 'GET / HTTP/1.1\nHost: h\n\n'],
    ['a NUL in a value', 'GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: a\0b\r\n\r\n'],
    ['UTF-8 in a value', 'GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: \xe4\xb8\xad\r\n\r\n'],
    [
      'a repeated Accept-Encoding',
      'GET / HTTP/1.1\r\nHost: h\r\nAccept-Encoding: br\r\nAccept-Encoding: gzip\r\n\r\n',
    ],
    [
      'a repeated If-None-Match',
      'GET / HTTP/1.1\r\nHost: h\r\nIf-None-Match: "a"\r\nif-none-match: "b"\r\n\r\n',
    ],
    ['both purposes', 'GET / HTTP/1.1\r\nHost: h\r\nSec-Purpose: prefetch\r\nPurpose: prefetch\r\n\r\n'],
    ['a head over the limit', `GET / HTTP/1.1\r\nHost: h\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`],
    ['over 100 header lines', `GET / HTTP/1.1\r\nHost: h\r\n${'a:\r\n'.repeat(100)}\r\n`],
  ])('leaves %s to Node', (_name, text) => {
    expect(read(text)).toBeNull();
  });
});

/**
 * Whatever readRequestHead reads, Node's parser must read the same way: same method, URL and
 * header values, no body, a kept-alive connection, and the next request starting where this one
 * ends. Requests are made by mutating real ones at random (seeded), so both accepted and refused
 * heads are tried; refused ones need nothing (Node answers them).
 */
describe('readRequestHead against Node’s parser', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Node's answers to the bytes, framed by Content-Length, until it closes the connection. */
  function exchange(bytes: Buffer): Promise<Array<{ status: number; body: string; head: string }>> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (c) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => {
        const all = Buffer.concat(chunks).toString('latin1');
        const answers = [];
        let at = 0;
        while (at < all.length) {
          const end = all.indexOf('\r\n\r\n', at);
          const head = all.slice(at, end);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          answers.push({
            status: Number(head.slice(9, 12)),
            head,
            body: Buffer.from(all.slice(end + 4, end + 4 + length), 'latin1').toString('utf8'),
          });
          at = end + 4 + length;
        }
        resolve(answers);
      });
      socket.end(bytes);
    });
  }

  const BASES = [
    CHROME,
    'GET /sites/1/ HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n',
    'GET /sites/3/a%20b/%E4%B8%AD.html?q=1&r=%2F#top HTTP/1.1\r\nHost: p3.sites.example.com\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\nSec-Purpose: prefetch;prerender\r\n\r\n',
  ];
  const BYTES = [
    '\0',
    '\t',
    ' ',
    '\r',
    '\n',
    ':',
    '\x7f',
    '\x80',
    '\xff',
    'a',
    '#',
    '?',
    '%',
    '"',
    '\\',
    '/',
    ',',
    ';',
  ];
  const LINES = [
    'Content-Length: 0',
    'Content-Length: 5',
    'Transfer-Encoding: chunked',
    'Host: other',
    ' folded',
    '\tfolded',
    ' User-Agent: folded',
    '\tHost: folded',
    'X-A : b',
    'X-A:b',
    ':empty-name',
    'Connection: close',
    'Connection: keep-alive',
    'connection: Keep-Alive',
    'Connection: keep-alive, Upgrade',
    'Accept-Encoding: br',
    'If-None-Match: *',
    'Purpose: prefetch',
    'Range: bytes=0-0',
    `X-Long: ${'x'.repeat(300)}`,
  ];
  /** A seeded generator (mulberry32): the same cases every run. */
  function random(seed: number) {
    let a = seed;
    return (n: number) => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
  }
  function mutate(text: string, pick: (n: number) => number): string {
    let out = text;
    const times = 1 + pick(3);
    for (let i = 0; i < times; i++) {
      const at = pick(out.length - 4);
      switch (pick(5)) {
        case 0:
          out = out.slice(0, at) + BYTES[pick(BYTES.length)] + out.slice(at);
          break;
        case 1:
          out = out.slice(0, at) + out.slice(at + 1);
          break;
        case 2: {
          // A whole line, after the request line.
          const line = out.indexOf('\r\n') + 2;
          out = `${out.slice(0, line)}${LINES[pick(LINES.length)]}\r\n${out.slice(line)}`;
          break;
        }
        case 3:
          out = out.slice(0, at) + out.charAt(at).toUpperCase() + out.slice(at + 1);
          break;
        default:
          out = out.slice(0, at) + BYTES[pick(BYTES.length)] + out.slice(at + 1);
      }
    }
    return out;
  }

  it('reads nothing Node reads differently (600 mutated requests)', async () => {
    const pick = random(20261123);
    const cases = [...BASES];
    for (let i = 0; i < 600; i++) cases.push(mutate(BASES[pick(BASES.length)] as string, pick));
    let accepted = 0;
    for (const text of cases) {
      const head = read(text);
      if (!head) continue;
      accepted++;
      const next = 'GET /next HTTP/1.1\r\nHost: n\r\nConnection: close\r\n\r\n';
      const answers = await exchange(Buffer.from(text.slice(0, head.end) + next, 'latin1'));
      const what = JSON.stringify(text);
      expect(
        answers.map((a) => a.status),
        what,
      ).toEqual([200, 200]);
      const [first, second] = answers as [(typeof answers)[0], (typeof answers)[0]];
      expect(first.head, what).toMatch(/\r\nConnection: keep-alive\r\n/);
      const seen = JSON.parse(first.body) as {
        method: string;
        url: string;
        headers: http.IncomingHttpHeaders;
      };
      expect(seen.method, what).toBe('GET');
      expect(seen.url, what).toBe(head.url);
      expect(seen.headers.host, what).toBe(head.host);
      expect(seen.headers['accept-encoding'], what).toBe(head.acceptEncoding);
      expect(seen.headers['if-none-match'], what).toBe(head.ifNoneMatch);
      expect(seen.headers['if-modified-since'], what).toBe(head.ifModifiedSince);
      expect(seen.headers['user-agent'], what).toBe(head.userAgent);
      expect(seen.headers['sec-purpose'] ?? seen.headers.purpose, what).toBe(head.purpose);
      expect(
        seen.headers['content-length'] ?? seen.headers['transfer-encoding'] ?? seen.headers.range,
      ).toBeUndefined();
      expect((JSON.parse(second.body) as { url: string }).url, what).toBe('/next');
    }
    // Enough of both kinds to mean something.
    expect(accepted).toBeGreaterThan(150);
    expect(accepted).toBeLessThan(cases.length - 150);
  });
});
