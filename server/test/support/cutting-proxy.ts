/**
 * A TCP proxy between a client and a server that the test controls: told to, it cuts a connection
 * after a number of the server's bytes, as a network or a storage server failing mid-answer does.
 * The server itself is never touched (other tests may share it).
 */
import net from 'node:net';

export interface CuttingProxy {
  /** Where clients connect: http://127.0.0.1:{port}. */
  port: number;
  /**
   * Every connection, open or new, is cut once `bytes` more bytes have come from the server (kept
   * alive connections too: a client's pool is not spared); null: none is cut from now on.
   */
  cutAfter(bytes: number | null): void;
  /** Connections cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: { host: string; port: number }): Promise<CuttingProxy> {
  let limit: number | null = null;
  /** Bumped by each cutAfter: a connection counts the server's bytes since the latest. */
  let armed = 0;
  let cuts = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    let counting = armed;
    let passed = 0;
    let cut = false;
    open.add(client).add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', closeBoth).on('close', closeBoth);
    upstream.on('error', closeBoth).on('close', closeBoth);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (cut) return;
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
      // What was written goes out first; then the connection breaks (a reset, not a clean end).
      client.end(() => closeBoth());
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cutAfter(bytes) {
      limit = bytes;
      armed++;
    },
    get cuts() {
      return cuts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
