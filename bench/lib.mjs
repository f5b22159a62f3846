// Helpers the benchmarks share: test sites as zips, free ports, and wrk's figures.
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** A zip of { path: content } built in memory (bench sites are small). */
export async function makeZip(entries) {
  const { ZipFile } = await import('yazl');
  const zip = new ZipFile();
  for (const [p, c] of Object.entries(entries)) zip.addBuffer(Buffer.from(c), p);
  zip.end();
  const chunks = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A loopback port nothing listens on right now. */
export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** wrk's latency ("850.00us", "1.20ms", "2.00s") in ms. */
export function toMs(value) {
  const m = /^([\d.]+)(us|ms|s)$/.exec(value);
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

export const pad = (s, n) => String(s).padStart(n);

/**
 * Node's options for the server, as `npm run serve` (and so `npm start`) gives them: the benches
 * measure the server as it is started.
 */
export const SERVER_NODE_ARGS = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const m = /^node (.*?) ?server\/dist\/main\.js$/.exec(pkg.scripts.serve);
  if (!m) throw new Error('package.json scripts.serve is not "node [options] server/dist/main.js"');
  return m[1] ? m[1].split(' ') : [];
})();
