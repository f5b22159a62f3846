/**
 * What the fault tests share: a test app whose PostgreSQL connections go through a TCP proxy the
 * test controls (and carry an application_name of their own, so the test can terminate exactly
 * its own backends), and timed requests over a real socket.
 */
import pg from 'pg';
import { expect } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { createTestApp, freshDatabase, listenPort, type TestApp } from '../helpers.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The URL of the database through the proxy, naming its connections. */
export function proxiedUrl(proxy: TcpProxy, applicationName: string): string {
  const url = new URL(PG_URL);
  url.host = proxy.address;
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

/** A fresh schema, and a proxy in front of the server it lives on. */
export async function proxiedDatabase() {
  const fresh = await freshDatabase();
  if (fresh.database.kind !== 'postgres') throw new Error('fault tests run on PostgreSQL only');
  const target = new URL(PG_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const applicationName = `sitehall_${fresh.database.schema}`;
  const database: Config['database'] = {
    kind: 'postgres',
    url: proxiedUrl(proxy, applicationName),
    schema: fresh.database.schema,
  };
  return {
    proxy,
    database,
    schema: fresh.database.schema!,
    applicationName,
    async close() {
      await proxy.close();
      await fresh.drop();
    },
  };
}

export interface FaultApp {
  t: TestApp;
  proxy: TcpProxy;
  port: number;
  applicationName: string;
  schema: string;
  close(): Promise<void>;
}

/** A test app on a fresh schema, reached through the proxy, listening on a loopback port. */
export async function faultApp(overrides: Partial<Config> = {}): Promise<FaultApp> {
  const db = await proxiedDatabase();
  // The production bounds (createTestApp is more patient), which the 2 s assertions are about.
  const t = await createTestApp({
    database: db.database,
    databaseTimeouts: loadConfig({}).databaseTimeouts,
    ...overrides,
  });
  const port = await listenPort(t);
  return {
    t,
    proxy: db.proxy,
    port,
    applicationName: db.applicationName,
    schema: db.schema,
    async close() {
      // A blackholed or cut proxy is forwarding again, so the app closes politely.
      db.proxy.restore();
      await t.close();
      await db.close();
    },
  };
}

/** Runs SQL on a direct connection (not through the proxy), in the test's schema. */
export async function direct<T>(schema: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Terminates the backends of one app (by its application_name), never anyone else's. */
export async function terminateBackends(applicationName: string): Promise<number> {
  return direct('public', async (c) => {
    const res = await c.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()',
      [applicationName],
    );
    return res.rowCount ?? 0;
  });
}

export interface TimedResponse {
  status: number;
  ms: number;
  headers: Headers;
  text: string;
}

/** A request over a real socket, timed from the call to the whole body. */
export async function timed(port: number, path: string, init: RequestInit = {}): Promise<TimedResponse> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    ...init,
    // The request itself must not hang either: a hang fails the test instead of blocking it.
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, headers: res.headers, text };
}

/** The 503 a request that needs the database gets while it is unreachable. */
export function expectUnavailable(res: TimedResponse, withinMs = 2_000): void {
  if (res.status !== 503) throw new Error(`expected 503, got ${res.status}: ${res.text.slice(0, 300)}`);
  expect(res.headers.get('retry-after')).toBe('5');
  expect(JSON.parse(res.text)).toEqual({ success: false, message: '服务暂时不可用，请稍后重试' });
  expect(res.ms).toBeLessThan(withinMs);
}

/**
 * The same 503 at a site address (/sites, /preview): a small page in Chinese for the visitor's
 * browser, not the API's JSON, never stored, with the site's sandbox headers.
 */
export function expectUnavailablePage(res: TimedResponse, withinMs = 2_000): void {
  if (res.status !== 503) throw new Error(`expected 503, got ${res.status}: ${res.text.slice(0, 300)}`);
  expect(res.headers.get('retry-after')).toBe('5');
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('cache-control')).toMatch(/no-store/);
  expect(res.headers.get('content-security-policy')).toMatch(/^sandbox /);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.text).toMatch(/^<!doctype html>/);
  expect(res.text).toContain('服务暂时不可用，请稍后重试');
  expect(res.text).not.toMatch(/<script/i);
  expect(res.ms).toBeLessThan(withinMs);
}

/** Polls until check() is true (or fails the test after ms). */
export async function eventually(
  check: () => Promise<boolean>,
  ms = 10_000,
  what = 'condition',
): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check().catch(() => false)) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not reached within ${ms} ms`);
}

export const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
