/**
 * Prometheus metrics: the series a scraper reads after real requests (route patterns as labels,
 * counts that match what was done), and that only a holder of METRICS_TOKEN may read them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MetricsServer, serveMetrics } from '../src/http/metrics.js';
import {
  createTestApp,
  listenPort,
  liveProject,
  rawRequest,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

const TOKEN = 'metrics-token-0123456789abcdef';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of Prometheus' text format (one per line: name{labels} value). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1]!] = pair[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the one sample with this name whose labels include `labels`, or undefined. */
function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

describe('metrics behind a token', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ metrics: { host: '127.0.0.1', token: TOKEN } });
  });
  afterAll(() => t.close());

  async function scrape(): Promise<Sample[]> {
    const res = await t.request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(res.body);
  }

  it('refuses a scrape without the token, or with another one', async () => {
    const none = await t.request({ url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(none.body).not.toContain('sitehall_');
    const wrong = await t.request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).not.toContain('sitehall_');
  });

  it('counts requests by route pattern and status, uploads, and hot-cache hits and misses', async () => {
    const { id } = await liveProject(t, SIMPLE_SITE);
    const refused = await uploadProject(t, (await t.createUser()).token, {
      name: '被拒项目',
      files: [{ name: 'tool.exe', content: 'MZ' }],
    });
    expect(refused.statusCode).toBe(400);
    // Two visits of a page and its stylesheet: each body is read from the store once, then from memory.
    for (let i = 0; i < 2; i++) {
      for (const file of ['', 'css/style.css']) {
        const res = await t.request({ url: `/sites/${id}/${file}` });
        expect(res.statusCode).toBe(200);
      }
    }
    expect((await t.request({ url: `/sites/${id + 1000}/` })).statusCode).toBe(404);
    expect((await t.request({ url: '/no/such/path' })).statusCode).toBe(404);

    const samples = await scrape();
    const requests = 'sitehall_http_request_duration_seconds_count';
    expect(sampleValue(samples, requests, { route: '/sites/*', method: 'GET', status: '200' })).toBe(4);
    expect(sampleValue(samples, requests, { route: '/sites/*', method: 'GET', status: '404' })).toBe(1);
    expect(
      sampleValue(samples, requests, { route: '/api/projects/upload', method: 'POST', status: '201' }),
    ).toBe(1);
    expect(
      sampleValue(samples, requests, { route: '/api/projects/upload', method: 'POST', status: '400' }),
    ).toBe(1);
    expect(sampleValue(samples, requests, { route: '(unmatched)', method: 'GET', status: '404' })).toBe(1);
    // Raw URLs never become labels.
    expect(samples.some((s) => s.labels.route?.includes(String(id)))).toBe(false);
    const bucket = sampleValue(samples, 'sitehall_http_request_duration_seconds_bucket', {
      route: '/sites/*',
      status: '200',
      le: '+Inf',
    });
    expect(bucket).toBe(4);

    expect(sampleValue(samples, 'sitehall_ingests_total', { outcome: 'accepted' })).toBe(1);
    expect(sampleValue(samples, 'sitehall_ingests_total', { outcome: 'refused' })).toBe(1);
    expect(sampleValue(samples, 'sitehall_ingest_duration_seconds_count', { outcome: 'accepted' })).toBe(1);
    expect(sampleValue(samples, 'sitehall_serve_cache_lookups_total', { result: 'hit' })).toBe(2);
    expect(sampleValue(samples, 'sitehall_serve_cache_lookups_total', { result: 'miss' })).toBe(2);

    const lag = sampleValue(samples, 'sitehall_view_flush_lag_seconds');
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(sampleValue(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('measures the view-flush lag from the last flush', async () => {
    await t.ctx.services.views.flush();
    const before = sampleValue(await scrape(), 'sitehall_view_flush_lag_seconds')!;
    expect(before).toBeLessThan(60);
    expect(Date.now() - t.ctx.services.views.lastFlushAt()).toBeLessThanOrEqual(before * 1000 + 1000);
  });

  it('serves the same text on a port of its own, with the same token', async () => {
    const server: MetricsServer = await serveMetrics(t.ctx.metrics, {
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const ok = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      const samples = parseExposition(await ok.text());
      expect(sampleValue(samples, 'sitehall_ingests_total', { outcome: 'accepted' })).toBe(1);
      expect((await fetch(`${base}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
        404,
      );
    } finally {
      await server.close();
    }
  });
});

describe('metrics without a token', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('/metrics on the main port is 404, whatever the request sends', async () => {
    const res = await t.request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('sitehall_');
  });

  it('requests are not timed when nothing reads the metrics', async () => {
    await t.request({ url: '/healthz' });
    const text = (await t.ctx.metrics.scrape()).body;
    expect(text).not.toContain('sitehall_http_request_duration_seconds_count{');
    expect(text).not.toContain('nodejs_eventloop_lag');
  });
});

describe('metrics of the hot-file fast path', () => {
  it('counts /sites answers made before Fastify too', async () => {
    const t = await createTestApp({ metrics: { host: '127.0.0.1', token: TOKEN } });
    try {
      const { id } = await liveProject(t, SIMPLE_SITE);
      const port = await listenPort(t);
      for (let i = 0; i < 3; i++) {
        expect((await rawRequest(port, `/sites/${id}/css/style.css`)).status).toBe(200);
      }
      // The first read fills the memory cache through the route; later ones take the fast path.
      expect(t.fastPath!.served).toBeGreaterThan(0);
      const res = await t.request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      const labels = { route: '/sites/*', method: 'GET', status: '200' };
      expect(
        sampleValue(parseExposition(res.body), 'sitehall_http_request_duration_seconds_count', labels),
      ).toBe(3);
    } finally {
      await t.close();
    }
  });
});
