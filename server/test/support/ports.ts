import net from 'node:net';

/**
 * A loopback port nothing listens on right now (the OS's pick, released at once): for a server of
 * a test's own, or one that is "down" and started on it later.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
