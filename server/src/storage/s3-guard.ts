/**
 * What keeps an S3 outage from holding requests (docs/decisions.md "S3 outages"). Every call the
 * S3 store makes runs through `run`:
 *
 * - a call that fails at the connection level (refused, reset, DNS, the SDK's connect or socket
 *   timeout) or with a 5xx from the store (a proxy in front of it answering 502) fails with
 *   StorageUnavailable, the API's 503, and makes the guard ask the store whether it is there;
 * - a call still unanswered after PROBE_AFTER_MS makes the guard ask too (a store behind a
 *   partition accepts nothing and refuses nothing: only asking tells), at most every PROBE_GAP_MS;
 *   a call the store was seen answering probes for meanwhile is not asked about again (a long
 *   upload is not an outage);
 * - the question is a HeadBucket within `probeMs`. Unanswered or failed, the store is *down*:
 *   every call in flight is aborted (its request gets 503 at once), every new call fails at once
 *   without touching the network, and the question is asked again every RETRY_FIRST_MS, doubling
 *   up to RETRY_MAX_MS, until it is answered: the store is up again, without a restart.
 *
 * Down and up are reported once each (`reportTo`), so an outage is one log line, not one per request.
 * Missing keys (404, NoSuchKey) and the store's refusals (403, 4xx) are answers, not outages: they
 * pass through unchanged.
 */
import { messages } from '@sitehall/contracts';
import { ServiceUnavailable } from '../domain/errors.js';
import type { StoreEvent } from './blob-store.js';

/** A call unanswered this long makes the guard ask the store whether it is there. */
const PROBE_AFTER_MS = 300;
/** Between two such questions while calls keep waiting. */
const PROBE_GAP_MS = 250;
/** How often waiting calls are looked at. */
const WATCH_TICK_MS = 100;
/** Between questions while the store is down: doubling from the first, up to the last. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 2_000;

/** The blob store can't be reached now: 503, try again later. */
export class StorageUnavailable extends ServiceUnavailable {
  constructor(readonly storeError?: unknown) {
    super(messages.common.storageUnavailable);
    // The SDK's own error, for logs and command-line tools (backup, migrate-storage).
    if (storeError !== undefined) this.cause = storeError;
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
]);

/**
 * Whether an error from the SDK means the store could not be reached or could not serve: a
 * network error, the SDK's connect or socket timeout (TimeoutError), or a 5xx answer.
 */
export function isStoreOutage(err: unknown): boolean {
  if (err instanceof StorageUnavailable) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (err.name === 'TimeoutError') return true;
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  // Some SDK paths wrap the socket's error.
  return err.cause !== undefined && err.cause !== err && isStoreOutage(err.cause);
}

interface Call {
  since: number;
  /** The store answered a question asked after this call had waited: it is not asked about again. */
  vouched: boolean;
  abort: AbortController;
}

export class S3Guard {
  readonly #ask: (signal: AbortSignal) => Promise<unknown>;
  readonly #probeMs: number;
  readonly #calls = new Set<Call>();
  #down = false;
  #probing: Promise<boolean> | null = null;
  #lastProbeEnd = Number.NEGATIVE_INFINITY;
  #retryMs = RETRY_FIRST_MS;
  #watch: NodeJS.Timeout | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;
  #onEvent: (event: StoreEvent) => void = () => {};

  /** `ask`: one cheap call that succeeds when the store can be used (HeadBucket), bounded by `probeMs`. */
  constructor(ask: (signal: AbortSignal) => Promise<unknown>, probeMs: number) {
    this.#ask = ask;
    this.#probeMs = probeMs;
  }

  /** Where down and up are told (the app's log), once each per outage. */
  reportTo(onEvent: (event: StoreEvent) => void): void {
    this.#onEvent = onEvent;
  }

  get down(): boolean {
    return this.#down;
  }

  /** StorageUnavailable while the store is known to be down; nothing otherwise. */
  throwIfDown(): void {
    if (this.#down || this.#closed) throw new StorageUnavailable();
  }

  /**
   * Runs one call to the store with a signal that aborts it when the store is found down. Refused
   * at once while the store is down; an outage error becomes StorageUnavailable. `own`: the
   * caller's signal, which aborts the call too (its error is then the call's own).
   */
  async run<T>(work: (signal: AbortSignal) => Promise<T>, own?: AbortSignal): Promise<T> {
    this.throwIfDown();
    const call: Call = { since: performance.now(), vouched: false, abort: new AbortController() };
    this.#calls.add(call);
    this.#startWatch();
    try {
      return await work(own ? AbortSignal.any([own, call.abort.signal]) : call.abort.signal);
    } catch (err) {
      if (call.abort.signal.aborted) throw new StorageUnavailable(err);
      if (own?.aborted) throw err;
      if (isStoreOutage(err)) {
        this.#check();
        throw err instanceof StorageUnavailable ? err : new StorageUnavailable(err);
      }
      throw err;
    } finally {
      this.#calls.delete(call);
    }
  }

  /** Stops the timers; calls fail from now on. */
  close(): void {
    this.#closed = true;
    if (this.#watch) clearInterval(this.#watch);
    if (this.#retry) clearTimeout(this.#retry);
    this.#watch = this.#retry = null;
  }

  /** Asks the store, unless a question is out or one ended less than PROBE_GAP_MS ago. */
  #check(): void {
    if (this.#probing || this.#down || performance.now() - this.#lastProbeEnd < PROBE_GAP_MS) return;
    void this.#probe();
  }

  #probe(): Promise<boolean> {
    if (this.#probing) return this.#probing;
    const started = performance.now();
    this.#probing = this.#ask(AbortSignal.timeout(this.#probeMs)).then(
      () => {
        for (const call of this.#calls) if (call.since <= started) call.vouched = true;
        if (this.#down) {
          this.#down = false;
          this.#retryMs = RETRY_FIRST_MS;
          if (!this.#closed) this.#onEvent({ kind: 'up' });
        }
        return true;
      },
      (err: unknown) => {
        if (!this.#down) {
          this.#down = true;
          if (!this.#closed) this.#onEvent({ kind: 'down', err });
          for (const call of this.#calls) call.abort.abort();
        }
        this.#scheduleRetry();
        return false;
      },
    );
    void this.#probing.finally(() => {
      this.#probing = null;
      this.#lastProbeEnd = performance.now();
    });
    return this.#probing;
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#probe();
    }, wait);
    this.#retry.unref();
  }

  #startWatch(): void {
    if (this.#watch || this.#closed) return;
    this.#watch = setInterval(() => {
      if (this.#calls.size === 0) {
        clearInterval(this.#watch!);
        this.#watch = null;
        return;
      }
      const now = performance.now();
      for (const call of this.#calls) {
        if (!call.vouched && now - call.since >= PROBE_AFTER_MS) {
          this.#check();
          return;
        }
      }
    }, WATCH_TICK_MS);
    this.#watch.unref();
  }
}
