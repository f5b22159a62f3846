import fs from 'node:fs';
import net from 'node:net';

/**
 * Ports a test picks for itself lie below Linux's ephemeral range (32768–60999 by default):
 * between the pick and the moment a server listens on it, the kernel never hands such a port to
 * an outgoing connection or a `listen(0)` of another test running beside this one. The OS's own
 * pick (a port from that range, released at once) was taken in that gap now and then on a loaded
 * runner, and the suite's setup failed with EADDRINUSE.
 */
const HIGH = ephemeralStart();
const LOW = Math.max(1024, HIGH - 12_000);

function ephemeralStart(): number {
  try {
    const [start] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Math.max(2048, Number(start) || 32_768);
  } catch {
    return 32_768;
  }
}
/** Ports this process handed out: never twice, even once their server has closed. */
const given = new Set<number>();

function bindable(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port nothing listens on right now: for a server of a test's own, or one that is
 * "down" and started on it later.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (given.has(port)) continue;
    given.add(port);
    if (await bindable(port)) return port;
  }
}
