/**
 * Prometheus metrics of one app: its own registry (several apps in one process, as in the tests,
 * never share series), the instruments the rest of the code feeds, and the text a scraper reads.
 * Feeding is cheap enough for the hot serving path: serve-cache lookups are plain numbers added to
 * the counter when scraped, and a request's series is a Map lookup with no strings built. Process metrics (event-loop delay, memory, CPU) start only when the
 * metrics are exposed, since they keep a sampling timer running.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { AppError } from '../domain/errors.js';

export interface MetricsOptions {
  /** Collect Node's process metrics (event-loop delay among them) and time HTTP requests. */
  exposed: boolean;
  /** When counted views were last written to the database (epoch ms), for the flush lag. */
  lastViewFlushAt?: () => number;
}

type IngestOutcome = 'accepted' | 'refused' | 'failed';
type RequestSeries = ReturnType<Histogram<'route' | 'method' | 'status'>['labels']>;

/** Requests answered by no route (404s, the web app's fallback) share one label value. */
export const UNMATCHED_ROUTE = '(unmatched)';

export class Metrics {
  readonly registry = new Registry();
  readonly exposed: boolean;
  readonly #requests: Histogram<'route' | 'method' | 'status'>;
  readonly #ingests: Counter<'outcome'>;
  readonly #ingestSeconds: Histogram<'outcome'>;
  readonly #diskFull: Counter;
  readonly #reclaimed: Counter<'kind'>;
  readonly #renderSeconds: Histogram<'outcome'>;
  /** The render queue's length (jobs queued or running), read when scraped (docs/render.md). */
  renderQueueLength: () => Promise<number> = async () => 0;
  /** Counted as plain numbers (every site response looks up its body); reported when scraped. */
  readonly #cacheLookups = { hit: 0, miss: 0 };
  /** route → method → status → bound series: label objects are made once per combination. */
  readonly #series = new Map<string, Map<string, Map<number, RequestSeries>>>();

  constructor(opts: MetricsOptions) {
    this.exposed = opts.exposed;
    const registers = [this.registry];
    this.#requests = new Histogram({
      name: 'sitehall_http_request_duration_seconds',
      help: 'HTTP requests by route pattern, method and status: latency until the response was sent.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
      registers,
    });
    this.#ingests = new Counter({
      name: 'sitehall_ingests_total',
      help: 'Uploads checked and unpacked, by outcome (refused: the upload broke a rule).',
      labelNames: ['outcome'],
      registers,
    });
    this.#ingestSeconds = new Histogram({
      name: 'sitehall_ingest_duration_seconds',
      help: 'Time to check and unpack an upload once received, by outcome.',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.#diskFull = new Counter({
      name: 'sitehall_disk_full_errors_total',
      help: 'Requests answered 507 because the disk was full (staging, blob store or SQLite).',
      registers,
    });
    this.#reclaimed = new Counter({
      name: 'sitehall_sweep_reclaimed_bytes_total',
      help: 'Bytes the leftover sweep freed, by kind: staging folders of dead uploads, orphan blobs.',
      labelNames: ['kind'],
      registers,
    });
    this.#renderSeconds = new Histogram({
      name: 'sitehall_render_duration_seconds',
      help: 'Renders of a version in headless Chromium (docs/render.md), by outcome (failed: an attempt that failed).',
      labelNames: ['outcome'],
      buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 20, 40],
      registers,
    });
    const queue = () => this.renderQueueLength();
    new Gauge({
      name: 'sitehall_render_queue_length',
      help: 'Render jobs queued or running.',
      registers,
      async collect() {
        this.set(await queue().catch(() => 0));
      },
    });
    const lookups = this.#cacheLookups;
    const reported = { hit: 0, miss: 0 };
    new Counter({
      name: 'sitehall_serve_cache_lookups_total',
      help: 'Site file bodies sent from the in-memory hot cache (hit) or opened from the blob store (miss).',
      labelNames: ['result'],
      registers,
      collect() {
        for (const result of ['hit', 'miss'] as const) {
          if (lookups[result] > reported[result]) this.inc({ result }, lookups[result] - reported[result]);
          reported[result] = lookups[result];
        }
      },
    });
    const lastFlush = opts.lastViewFlushAt;
    if (lastFlush) {
      new Gauge({
        name: 'sitehall_view_flush_lag_seconds',
        help: 'Seconds since counted site views were last written to the database.',
        registers,
        collect() {
          this.set((Date.now() - lastFlush()) / 1000);
        },
      });
    }
    if (opts.exposed) collectDefaultMetrics({ register: this.registry });
  }

  /** One answered HTTP request (route: the route's pattern, never the raw URL). */
  observeRequest(route: string | undefined, method: string, status: number, ms: number): void {
    const key = route ?? UNMATCHED_ROUTE;
    let byMethod = this.#series.get(key);
    if (!byMethod) {
      byMethod = new Map();
      this.#series.set(key, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let series = byStatus.get(status);
    if (!series) {
      series = this.#requests.labels(key, method, String(status));
      byStatus.set(status, series);
    }
    series.observe(ms / 1000);
  }

  /** Times one ingest; `refused` is an error the user caused (not an outage or a full disk), anything else `failed`. */
  async timeIngest<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let outcome: IngestOutcome = 'failed';
    try {
      const result = await work();
      outcome = 'accepted';
      return result;
    } catch (error) {
      if (error instanceof AppError && !error.serverSide) outcome = 'refused';
      throw error;
    } finally {
      this.#ingests.inc({ outcome });
      this.#ingestSeconds.observe({ outcome }, (performance.now() - started) / 1000);
    }
  }

  /** A request refused because the disk was full. */
  /** One render attempt and how it ended. */
  rendered(outcome: 'done' | 'failed', ms: number): void {
    this.#renderSeconds.observe({ outcome }, ms / 1000);
  }

  diskFull(): void {
    this.#diskFull.inc();
  }

  /** Bytes the leftover sweep removed. */
  reclaimed(kind: 'staging' | 'blobs', bytes: number): void {
    if (bytes > 0) this.#reclaimed.inc({ kind }, bytes);
  }

  /** Whether a site file body came from memory. Bound as a callback: keep it an arrow. */
  readonly serveCacheLookup = (hit: boolean): void => {
    this.#cacheLookups[hit ? 'hit' : 'miss']++;
  };

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
