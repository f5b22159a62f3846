/**
 * A client that holds a huge request head open (slowloris with a 1 MiB head: a Cookie header
 * nearly as large as the head limit, its last bytes sent one at a time) on several connections.
 * The app takes heads up to 1 MiB (http/client-errors.ts, for cookie jars a site filled), so such a
 * connection costs up to 1 MiB for as long as it lasts: the header timeout must end it, a byte now
 * and then must not extend it, and other clients must be answered meanwhile. Real sockets.
 */
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { MAX_HEAD_BYTES } from '../src/http/client-errors.js';
import { createTestApp, listenPort, rawRequest, type TestApp } from './helpers.js';
import { Wire } from './support/wire.js';

const HEADERS_TIMEOUT_MS = 2000;
/** Node's own connections check runs every 30 s: a head held that long was not ended by our timeout. */
const NODE_DEFAULT_CHECK_MS = 30_000;

describe('a 1 MiB request head sent byte by byte', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    const timeouts = {
      ...loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp' }).timeouts,
      headers: HEADERS_TIMEOUT_MS,
    };
    t = await createTestApp({ timeouts });
    port = await listenPort(t);
  });
  afterAll(() => t?.close());

  it('is answered 408 and closed at the header timeout, while other clients are served', async () => {
    const holders = await Promise.all(Array.from({ length: 4 }, () => Wire.connect(port)));
    const started = performance.now();
    const closedAt: number[] = [];
    const cookie = `a=${'x'.repeat(MAX_HEAD_BYTES - 4096)}`;
    for (const wire of holders) {
      wire.send(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}`);
      void wire.closedByServer().then(() => closedAt.push(performance.now() - started));
    }
    // One more byte of the cookie on each connection every 50 ms until the server closes it: the
    // head stays under 1 MiB (a 431 would end it sooner) and never completes.
    const trickle = setInterval(() => {
      for (const wire of holders) if (!wire.closed) wire.send('y');
    }, 50);
    try {
      // Other clients are answered while the heads are held.
      let served = 0;
      while (holders.some((w) => !w.closed)) {
        const answer = await rawRequest(port, '/healthz');
        expect(answer.status).toBe(200);
        served++;
      }
      expect(served).toBeGreaterThan(0);
    } finally {
      clearInterval(trickle);
    }
    for (const wire of holders) {
      const answer = await wire.answer();
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body.toString()).message).toBe(messages.common.timeout);
    }
    // Ended by the header timeout, counted from the head's first byte and not reset by the trickle,
    // and by the app's own check rather than Node's 30 s default one.
    expect(Math.min(...closedAt)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(Math.max(...closedAt)).toBeLessThan(NODE_DEFAULT_CHECK_MS - 5000);
  });
});
