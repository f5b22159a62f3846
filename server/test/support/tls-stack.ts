/**
 * The TLS stack of docs/deploy.md "Custom domains and HTTPS", started for a test from the Debian
 * packages: pebble-challtestsrv as the DNS (for Pebble's validations and SiteHall's TXT checks;
 * every name's A record is 127.0.0.1), Pebble as the ACME server, and Caddy running
 * deploy/caddy/Caddyfile with its ports, ask address and ACME server put in. Each on free loopback
 * ports, each waited for by what it answers, and all stopped by `stop()`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { freePort } from './ports.js';

const root = path.resolve(import.meta.dirname, '../../..');
export const CADDYFILE = path.join(root, 'deploy/caddy/Caddyfile');

function which(name: string): string | null {
  for (const dir of ['/usr/bin', '/usr/local/bin', '/usr/sbin']) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

export const BINARIES = {
  caddy: which('caddy'),
  pebble: which('pebble'),
  challtestsrv: which('pebble-challtestsrv'),
};
/** The binaries not installed (apt-get install caddy pebble). */
export const missingBinaries = Object.entries(BINARIES)
  .filter(([, p]) => p === null)
  .map(([name]) => name);

/** Polls `ready` until it is true; fails with `what` and the child's log when it exits or takes too long. */
async function waitFor(what: string, ready: () => Promise<boolean>, child: Started, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.process.exitCode !== null) throw new Error(`${what} exited: ${child.log()}`);
    if (await ready().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms: ${child.log()}`);
}

interface Started {
  process: ChildProcess;
  /** The output's last 6,000 characters (for failure messages). */
  log(): string;
  /** All of the output (up to 4 MB): for waiting on a line that may have scrolled out of log(). */
  text(): string;
  stop(): Promise<void>;
}

function start(bin: string, args: string[], env: Record<string, string> = {}): Started {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  let all = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-6000);
    if (all.length < 4 << 20) all += d.toString();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.on('error', (err) => keep(Buffer.from(String(err))));
  return {
    process: child,
    log: () => tail,
    text: () => all,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
    },
  };
}

/** A GET over HTTPS to 127.0.0.1:port as a browser visiting `host` sends it (SNI and Host), trusting only `ca`. */
export function httpsGet(
  port: number,
  host: string,
  urlPath: string,
  ca: string | string[],
  timeoutMs = 60_000,
): Promise<{ status: number; body: string; peer: import('node:tls').PeerCertificate }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        servername: host,
        headers: { host },
        ca,
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const peer = (res.socket as import('node:tls').TLSSocket).getPeerCertificate(true);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), peer }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/** A CA and a certificate for 127.0.0.1 and localhost signed by it: Pebble's own HTTPS. */
function makePebbleCertificate(dir: string): { ca: string; cert: string; key: string } {
  const ca = path.join(dir, 'minica.pem');
  const caKey = path.join(dir, 'minica-key.pem');
  const cert = path.join(dir, 'pebble.pem');
  const key = path.join(dir, 'pebble-key.pem');
  const csr = path.join(dir, 'pebble.csr');
  const ext = path.join(dir, 'ext.cnf');
  fs.writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const steps = [
    ['req', '-x509', ...ec, '-keyout', caKey, '-out', ca, '-days', '2', '-subj', '/CN=test minica'],
    ['req', ...ec, '-keyout', key, '-out', csr, '-subj', '/CN=localhost'],
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      ca,
      '-CAkey',
      caKey,
      '-CAcreateserial',
      '-out',
      cert,
      '-days',
      '2',
      '-extfile',
      ext,
    ],
  ];
  for (const args of steps) {
    const res = spawnSync('openssl', args, { cwd: dir });
    if (res.status !== 0) throw new Error(`openssl ${args[0]} failed: ${res.stderr}`);
  }
  return { ca, cert, key };
}

function replaceOnce(text: string, from: string, to: string): string {
  const parts = text.split(from);
  if (parts.length < 2) throw new Error(`deploy/caddy/Caddyfile no longer contains: ${from}`);
  return parts.join(to);
}

export interface TlsStack {
  /** Caddy's HTTPS port. */
  httpsPort: number;
  /** pebble-challtestsrv's DNS, as DNS_RESOLVERS takes it. */
  dnsAddress: string;
  /** Pebble's issuing root (PEM), what a certificate it issued chains to. */
  pebbleRoot(): Promise<string>;
  setTxt(name: string, value: string): Promise<void>;
  caddyLog(): string;
  /** The tails of Caddy's, Pebble's and the DNS server's output: what a failure reports. */
  logs(): string;
  stop(): Promise<void>;
}

/** Starts DNS and Pebble; Caddy once `sitehallPort` is known (startCaddy). */
export async function startTlsStack(dir: string): Promise<{
  dnsAddress: string;
  startCaddy(sitehallPort: number): Promise<TlsStack>;
  stop(): Promise<void>;
}> {
  const children: Started[] = [];
  const stop = async () => {
    for (const c of children.reverse()) await c.stop();
  };
  try {
    const ports: number[] = await Promise.all(Array.from({ length: 6 }, freePort));
    const [dnsPort, dnsAdmin, acmePort, acmeAdmin, httpPort, httpsPort] = ports as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const dns = start(BINARIES.challtestsrv!, [
      '-dns01',
      `127.0.0.1:${dnsPort}`,
      '-http01',
      '',
      '-https01',
      '',
      '-tlsalpn01',
      '',
      '-management',
      `127.0.0.1:${dnsAdmin}`,
      '-defaultIPv4',
      '127.0.0.1',
      '-defaultIPv6',
      '',
    ]);
    children.push(dns);
    await waitFor(
      'pebble-challtestsrv',
      async () =>
        (await fetch(`http://127.0.0.1:${dnsAdmin}/clear-txt`, { method: 'POST', body: '{"host":"x."}' })).ok,
      dns,
    );

    const certs = makePebbleCertificate(dir);
    const minica = fs.readFileSync(certs.ca, 'utf8');
    const pebbleConfig = path.join(dir, 'pebble-config.json');
    fs.writeFileSync(
      pebbleConfig,
      JSON.stringify({
        pebble: {
          listenAddress: `127.0.0.1:${acmePort}`,
          managementListenAddress: `127.0.0.1:${acmeAdmin}`,
          certificate: certs.cert,
          privateKey: certs.key,
          // Pebble validates on Caddy's ports (HTTP-01 and TLS-ALPN-01).
          httpPort,
          tlsPort: httpsPort,
          ocspResponderURL: '',
          externalAccountBindingRequired: false,
        },
      }),
    );
    const pebble = start(BINARIES.pebble!, ['-config', pebbleConfig, '-dnsserver', `127.0.0.1:${dnsPort}`], {
      // No random waits before validating, no nonces refused on purpose: the test's time goes to
      // the real work.
      PEBBLE_VA_NOSLEEP: '1',
      PEBBLE_WFE_NONCEREJECT: '0',
    });
    children.push(pebble);
    const pebbleGet = (urlPath: string, port: number) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: urlPath, ca: minica, agent: false }, (res) => {
            let body = '';
            res.on('data', (c) => {
              body += c;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            res.on('error', reject);
          })
          .on('error', reject);
      });
    await waitFor('pebble', async () => (await pebbleGet('/dir', acmePort)).status === 200, pebble);

    return {
      dnsAddress: `127.0.0.1:${dnsPort}`,
      stop,
      async startCaddy(sitehallPort) {
        let conf = fs.readFileSync(CADDYFILE, 'utf8');
        conf = replaceOnce(conf, '127.0.0.1:3000', `127.0.0.1:${sitehallPort}`);
        conf = replaceOnce(
          conf,
          '{\n\ton_demand_tls {',
          [
            '{',
            '\tadmin off',
            `\thttp_port ${httpPort}`,
            `\thttps_port ${httpsPort}`,
            `\tstorage file_system ${path.join(dir, 'caddy-data')}`,
            `\tacme_ca https://127.0.0.1:${acmePort}/dir`,
            `\tacme_ca_root ${certs.ca}`,
            '\tskip_install_trust',
            '\ton_demand_tls {',
          ].join('\n'),
        );
        // The app's and the sites host's certificates come from Caddy's own CA here: obtained from
        // Pebble at once at start, they made Debian's Caddy 2.6.2 register two ACME accounts
        // concurrently and keep one's key with the other's account URL (certmagic registered
        // accounts without a lock until its PR 293, 2024), so the custom domain's order later
        // failed with "JWS verification error" (CI, 2026-11-29). The custom domain, which the
        // tests are about, is the only name Pebble is asked for, so the account is made once.
        for (const host of ['app.example.com', 'sites.example.com'])
          conf = replaceOnce(conf, `\n${host} {\n`, `\n${host} {\n\ttls internal\n`);
        const caddyfile = path.join(dir, 'Caddyfile');
        fs.writeFileSync(caddyfile, conf);
        const home = path.join(dir, 'caddy-home');
        fs.mkdirSync(home, { recursive: true });
        const caddy = start(BINARIES.caddy!, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
          HOME: home,
          XDG_DATA_HOME: home,
          XDG_CONFIG_HOME: home,
        });
        children.push(caddy);
        await waitFor(
          'caddy',
          () =>
            new Promise<boolean>((resolve) => {
              const s = net.connect(httpsPort, '127.0.0.1', () => {
                s.destroy();
                resolve(true);
              });
              s.on('error', () => resolve(false));
            }),
          caddy,
        );
        // Caddy gets the Caddyfile's own names' certificates first, registering its ACME account on
        // the way. An on-demand order sent meanwhile was once signed with a key Pebble didn't hold
        // for the account ("JWS verification error"), and Caddy retries it only after 60 s and
        // 120 s: so nothing is asked of it before those are in.
        await waitFor(
          'caddy’s certificates for app.example.com and sites.example.com',
          async () =>
            ['app.example.com', 'sites.example.com'].every((name) =>
              new RegExp(
                `certificate obtained successfully[^\\n]*"identifier":"${name.replace(/\./g, '\\.')}"`,
              ).test(caddy.text()),
            ),
          caddy,
        );
        return {
          httpsPort,
          dnsAddress: `127.0.0.1:${dnsPort}`,
          async pebbleRoot() {
            const res = await pebbleGet('/roots/0', acmeAdmin);
            if (res.status !== 200) throw new Error(`pebble /roots/0: ${res.status}`);
            return res.body;
          },
          async setTxt(name, value) {
            const res = await fetch(`http://127.0.0.1:${dnsAdmin}/set-txt`, {
              method: 'POST',
              body: JSON.stringify({ host: `${name}.`, value }),
            });
            if (!res.ok) throw new Error(`set-txt: ${res.status}`);
          },
          caddyLog: () => caddy.log(),
          logs: () =>
            `--- caddy:\n${caddy.log()}\n--- pebble:\n${pebble.log()}\n--- pebble-challtestsrv:\n${dns.log()}`,
          stop,
        };
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

export { freePort };
