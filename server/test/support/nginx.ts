/**
 * Requests through deploy/nginx/sitehall.conf as a browser sends them: TLS to nginx's port with the
 * host's name (SNI and Host), trusting the test's self-signed certificate, one connection each.
 */
import https from 'node:https';

export interface NginxAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export function viaNginx(
  target: { port: number; ca: string },
  host: string,
  urlPath: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<NginxAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: target.port,
        servername: host,
        ca: target.ca,
        method: opts.method ?? 'GET',
        path: urlPath,
        headers: { host, ...opts.headers },
        agent: false,
        // A bound for a loaded runner, not an expectation: an upload's answer comes once the
        // instance has unpacked and checked it, which took over 20 s at load 19.
        timeout: 90_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${host}${urlPath}: no answer within 90 s`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}
