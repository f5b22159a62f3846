/**
 * A TCP proxy a fault test controls, put between the app and PostgreSQL or Redis on loopback.
 *
 * - `cut()`: every open connection is reset and new ones are refused (the server "went away").
 * - `blackhole()`: connections stay open but nothing is forwarded either way, and new ones are
 *   accepted and left silent (a network partition: packets vanish, nothing answers).
 * - `restore()`: back to forwarding; connections made from then on work.
 * - `dropConnections()`: resets the open connections but keeps accepting new ones (a restart or a
 *   `pg_terminate_backend` of every backend, seen from the client).
 * - `cutAfter(bytes)`: every connection, open or new, breaks once that many more bytes have come
 *   from the server (a store failing mid-answer); `cutAfter(null)` stops it.
 */
import net from 'node:net';

export type ProxyMode = 'forward' | 'cut' | 'blackhole';

export interface TcpProxy {
  /** The port the app connects to, on 127.0.0.1. */
  port: number;
  /** `host:port` of the proxy, for building connection URLs. */
  address: string;
  mode(): ProxyMode;
  cut(): void;
  blackhole(): void;
  restore(): void;
  dropConnections(): void;
  cutAfter(bytes: number | null): void;
  /** Connections broken by cutAfter so far. */
  readonly cuts: number;
  /** Connections currently open through the proxy. */
  openConnections(): number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const pairs = new Set<Pair>();
  let limit: number | null = null;
  /** Bumped by each cutAfter: a connection counts the server's bytes since the latest. */
  let armed = 0;
  let cuts = 0;

  const destroy = (pair: Pair) => {
    // resetAndDestroy sends an RST, as a crashed peer or a cut link does; destroy() would send a
    // polite FIN, which clients handle on a different path.
    pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
    pairs.delete(pair);
  };

  const server = net.createServer((client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on('error', () => destroy(pair));
    client.on('close', () => destroy(pair));
    if (mode === 'cut') {
      destroy(pair);
      return;
    }
    if (mode === 'blackhole') {
      // Accepted, then silence: the client's bytes are read and dropped.
      client.on('data', () => {});
      return;
    }
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('error', () => destroy(pair));
    upstream.on('close', () => destroy(pair));
    client.on('data', (chunk) => {
      if (mode === 'forward') upstream.write(chunk);
    });
    let counting = armed;
    let passed = 0;
    let cut = false;
    upstream.on('data', (chunk: Buffer) => {
      if (mode !== 'forward' || cut) return;
      if (limit === null) {
        client.write(chunk);
        return;
      }
      if (counting !== armed) {
        counting = armed;
        passed = 0;
      }
      const room = limit - passed;
      passed += chunk.length;
      if (room > chunk.length) {
        client.write(chunk);
        return;
      }
      if (room > 0) client.write(chunk.subarray(0, room));
      cut = true;
      cuts++;
      // What was written goes out first; then the connection breaks.
      client.end(() => destroy(pair));
      upstream.destroy();
    });
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    address: `127.0.0.1:${port}`,
    mode: () => mode,
    cut() {
      mode = 'cut';
      for (const pair of [...pairs]) destroy(pair);
    },
    blackhole() {
      mode = 'blackhole';
    },
    restore() {
      // Connections that lived through a blackhole have lost bytes in both directions, so their
      // protocol state is garbage: reset them, as a real partition ends in timeouts and resets.
      if (mode === 'blackhole') for (const pair of [...pairs]) destroy(pair);
      mode = 'forward';
    },
    dropConnections() {
      for (const pair of [...pairs]) destroy(pair);
    },
    cutAfter(bytes) {
      limit = bytes;
      armed++;
    },
    get cuts() {
      return cuts;
    },
    openConnections: () => pairs.size,
    async close() {
      for (const pair of [...pairs]) destroy(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
