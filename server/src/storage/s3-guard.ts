/**
 * What keeps an S3 outage from holding requests (docs/decisions/faults.md "S3 outages"). Every call the
 * S3 store makes runs through `run`, watched by the outage watch it shares with PostgreSQL's pool
 * (domain/outage-watch.ts: when to ask, down and up, backoff, one log line each way). What is the
 * store's own:
 *
 * - the question is a HeadBucket within `probeMs`;
 * - a call that fails at the connection level (refused, reset, DNS, the SDK's connect or socket
 *   timeout) or with a 5xx from the store (a proxy in front of it answering 502) fails with
 *   StorageUnavailable, the API's 503, and makes the watch ask (spaced: a throttling store
 *   answers many calls 503 at once);
 * - a call the store was seen answering questions for meanwhile is not asked about again (a long
 *   upload is not an outage, and each question is a request to the bucket);
 * - while the store is down every call in flight is aborted (its request gets 503 at once) and
 *   every new call fails at once without touching the network.
 *
 * Missing keys (404, NoSuchKey) and the store's refusals (403, 4xx) are answers, not outages: the
 * store is not counted down for them. A refusal of the platform's own keys (401, 403: keys revoked
 * or rotated, a bucket policy) is still StorageUnavailable for the call, the 503 文件存储暂时不可用:
 * nothing the request did, and a visitor got 500 服务器内部错误 for it. Other answers pass through
 * unchanged.
 */
import { messages } from '@sitehall/contracts';
import { ServiceUnavailable } from '../domain/errors.js';
import { askWithin, NETWORK_ERROR_CODES, OutageWatch, Unanswered } from '../domain/outage-watch.js';
import type { StoreEvent } from './blob-store.js';

/** The blob store can't be reached now: 503, try again later. */
export class StorageUnavailable extends ServiceUnavailable {
  constructor(readonly storeError?: unknown) {
    super(messages.common.storageUnavailable);
    // The SDK's own error, for logs and command-line tools (backup, migrate-storage).
    if (storeError !== undefined) this.cause = storeError;
  }
}

/**
 * Whether an error from the SDK means the store could not be reached or could not serve: a
 * network error, the SDK's connect or socket timeout (TimeoutError), or a 5xx answer.
 */
export function isStoreOutage(err: unknown): boolean {
  if (err instanceof StorageUnavailable) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  if (err.name === 'TimeoutError') return true;
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  // Some SDK paths wrap the socket's error.
  return err.cause !== undefined && err.cause !== err && isStoreOutage(err.cause);
}

/**
 * Whether the store refused the platform's own credentials (401, 403). A missing key is 404 where
 * the keys may list the bucket, which the store needs for its listing anyway (README "S3-compatible
 * storage").
 */
function refusesKeys(err: unknown): boolean {
  const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return status === 401 || status === 403;
}

export class S3Guard {
  readonly #watch: OutageWatch;

  /** `ask`: one cheap call that succeeds when the store can be used (HeadBucket), bounded by `probeMs`. */
  constructor(ask: (signal: AbortSignal) => Promise<unknown>, probeMs: number) {
    this.#watch = new OutageWatch({
      // The SDK's own connect or socket timeout is a slow answer too, not a refusal.
      ask: () =>
        askWithin(ask, probeMs).catch((err: unknown) => {
          throw err instanceof Error && err.name === 'TimeoutError' && !(err instanceof Unanswered)
            ? Object.assign(new Unanswered(probeMs), { cause: err })
            : err;
        }),
      waitingCalls: 'trusted',
      afterFailure: 'spaced',
    });
  }

  /** Where down and up are told (the app's log), once each per outage. */
  reportTo(onEvent: (event: StoreEvent) => void): void {
    this.#watch.reportTo(onEvent);
  }

  get down(): boolean {
    return this.#watch.down;
  }

  /** The store could not be reached at start: down until its HeadBucket answers (see startDown). */
  startDown(): void {
    this.#watch.startDown();
  }

  /** StorageUnavailable while the store is known to be down; nothing otherwise. */
  throwIfDown(): void {
    if (!this.#watch.available) throw new StorageUnavailable();
  }

  /**
   * Runs one call to the store with a signal that aborts it when the store is found down. Refused
   * at once while the store is down; an outage error becomes StorageUnavailable. `own`: the
   * caller's signal, which aborts the call too (its error is then the call's own).
   */
  async run<T>(work: (signal: AbortSignal) => Promise<T>, own?: AbortSignal): Promise<T> {
    this.throwIfDown();
    const call = this.#watch.track();
    let answered = false;
    try {
      const result = await work(own ? AbortSignal.any([own, call.signal]) : call.signal);
      answered = true;
      return result;
    } catch (err) {
      if (call.signal.aborted) throw new StorageUnavailable(err);
      if (own?.aborted) throw err;
      if (isStoreOutage(err)) {
        this.#watch.suspect();
        throw err instanceof StorageUnavailable ? err : new StorageUnavailable(err);
      }
      // The store's own answer (a missing key, a refusal): it is there.
      answered = true;
      if (refusesKeys(err)) throw new StorageUnavailable(err);
      throw err;
    } finally {
      call.finish(answered);
    }
  }

  /** Stops the timers; calls fail from now on. */
  close(): void {
    this.#watch.close();
  }
}
