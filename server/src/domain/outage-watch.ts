/**
 * How the app tells that a dependency it calls over the network is down, and when it is back:
 * shared by PostgreSQL's pool (db/postgres-pool.ts) and the S3 store's guard (storage/s3-guard.ts),
 * as docs/decisions/faults.md "A silent dependency is found by asking" describes.
 *
 * A dependency behind a partition accepts and refuses nothing, and no timeout short enough for the
 * 2 s rule would let a long statement or a large upload finish: only asking tells. So
 *
 * - the calls waiting for an answer are watched (`track`): one unanswered for PROBE_AFTER_MS, or
 *   one that failed the way an outage fails (`suspect`), makes the watch ask the dependency its
 *   cheap question, one at a time and at most every PROBE_GAP_MS while calls keep waiting;
 * - a question refused (the connection refused or reset) means *down*, and so does one unanswered
 *   within the dependency's own bound while nothing else it was asked was answered meanwhile:
 *   reported once, every watched call's signal is aborted, the dependency drops what it holds
 *   (`onDown`), and while down nothing is asked but the question itself, again after
 *   RETRY_FIRST_MS, doubling up to RETRY_MAX_MS, until it is answered: *up*, reported once,
 *   without a restart;
 * - a question unanswered in time while other calls were answered meanwhile is a busy machine, not
 *   an outage: no verdict, and it is asked again while calls wait. A bound is judged only after
 *   the answers that arrived while this process was busy are read (`askWithin`). On a starved
 *   machine one slow question took the dependency for down, and cut every call in flight
 *   (docs/decisions/faults.md "An outage needs evidence, not one slow answer").
 *
 * What differs stays with each dependency: the question, what a refused call throws, which errors
 * look like an outage, how its calls are cut, and the two choices of `OutageWatchOptions`.
 */

/**
 * The socket and name-lookup errors (Node's `code`) of a dependency that can't be reached: an
 * outage's sign for either dependency, beside what each one's client says of its own.
 */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
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

/** A call unanswered this long makes the watch ask whether the dependency is there. */
export const PROBE_AFTER_MS = 300;
/** Between two questions while calls keep waiting. */
export const PROBE_GAP_MS = 250;
/** How often waiting calls are looked at. */
const WATCH_TICK_MS = 100;
/** Between questions while the dependency is down: doubling from the first, up to the last. */
export const RETRY_FIRST_MS = 250;
export const RETRY_MAX_MS = 2_000;

/** The question got no answer within its bound (not a refusal: the dependency may only be slow). */
export class Unanswered extends Error {
  constructor(boundMs: number) {
    super(`no answer within ${boundMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * Asks with a bound: `signal` is aborted, and the result an Unanswered, when no answer came within
 * `boundMs`. The bound is judged after this turn's I/O is read (setImmediate runs after the poll
 * phase): an answer that arrived while the event loop was busy is an answer, not a timeout.
 */
export function askWithin<T>(ask: (signal: AbortSignal) => Promise<T>, boundMs: number): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        reject(new Unanswered(boundMs));
        abort.abort();
      });
    }, boundMs);
  });
  return Promise.race([ask(abort.signal), bound]).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
}

/** The dependency became unreachable (its calls fail at once), or answers again. */
export type OutageEvent = { kind: 'down'; err: unknown } | { kind: 'up' };

export interface OutageWatchOptions {
  /**
   * The dependency's cheap question (PostgreSQL `select 1`, S3 `HeadBucket`): resolves when it
   * answers, rejects when it is refused, or with an Unanswered when no answer came within the
   * dependency's own bound (`askWithin`). The rejection is the outage's reported cause.
   */
  ask(): Promise<unknown>;
  /** Drops what the dependency holds besides the watched calls (their signals are aborted already). */
  onDown?(err: unknown): void;
  /**
   * What an answered question says about the calls already waiting. `trusted`: they are not asked
   * about again (S3: a question is a request to the bucket, and a large upload must not cost one
   * every PROBE_GAP_MS). `rechecked`: they are asked about every PROBE_GAP_MS for as long as they
   * wait (PostgreSQL: a partition that begins during a long statement is still found within 2 s).
   */
  waitingCalls: 'trusted' | 'rechecked';
  /**
   * When a call's outage-like failure asks. `spaced`: not within PROBE_GAP_MS of the last question
   * either (S3: a throttling store answers 503 to many calls at once). `at once`: whenever no
   * question is out (PostgreSQL: a lost connection is a rare and strong sign).
   */
  afterFailure: 'spaced' | 'at once';
}

/** A call to the dependency, watched while it waits for its answer. */
export interface WatchedCall {
  /** Aborted when the dependency is found down, so a call that can be cut on its own is. */
  readonly signal: AbortSignal;
  /**
   * The call has its answer, or its error: it is no longer watched. `answered`: the dependency
   * answered it (a result, or an error of its own such as a constraint or a missing key), a sign
   * of life while a question waits.
   */
  finish(answered?: boolean): void;
}

class Waiting implements WatchedCall {
  readonly since = performance.now();
  /** The dependency answered a question asked after this call began waiting. */
  vouched = false;
  #abort: AbortController | null = null;
  #aborted = false;

  constructor(readonly finish: (answered?: boolean) => void) {}

  // Made when asked for: a pool's query never needs one (its connections are dropped instead).
  get signal(): AbortSignal {
    this.#abort ??= new AbortController();
    if (this.#aborted) this.#abort.abort();
    return this.#abort.signal;
  }

  abort(): void {
    this.#aborted = true;
    this.#abort?.abort();
  }
}

export class OutageWatch {
  readonly #options: OutageWatchOptions;
  readonly #calls = new Set<Waiting>();
  #down = false;
  #closed = false;
  #asking: Promise<void> | null = null;
  #lastAnswerAt = Number.NEGATIVE_INFINITY;
  /** When the dependency last answered a watched call. */
  #lastLifeAt = Number.NEGATIVE_INFINITY;
  #retryMs = RETRY_FIRST_MS;
  #watch: NodeJS.Timeout | null = null;
  #retry: NodeJS.Timeout | null = null;
  #report: (event: OutageEvent) => void = () => {};

  constructor(options: OutageWatchOptions) {
    this.#options = options;
  }

  /** Where down and up are told (the app's log), once each per outage. */
  reportTo(report: (event: OutageEvent) => void): void {
    this.#report = report;
  }

  /** Whether the dependency is known to be unreachable now. */
  get down(): boolean {
    return this.#down;
  }

  /** Whether calls may go out: not down, not closed. */
  get available(): boolean {
    return !this.#down && !this.#closed;
  }

  /** Watches one call from now until its `finish`. */
  track(): WatchedCall {
    const call: Waiting = new Waiting((answered) => {
      this.#calls.delete(call);
      if (answered) this.#lastLifeAt = performance.now();
    });
    // One that begins while the dependency is down is cut like those that were waiting.
    if (this.#down) call.abort();
    this.#calls.add(call);
    this.#startWatch();
    return call;
  }

  /** A call failed the way an outage fails: ask (as `afterFailure` allows). */
  suspect(): void {
    if (this.#options.afterFailure === 'spaced') this.#askIfDue();
    else if (!this.#asking && !this.#down && !this.#closed) void this.#ask();
  }

  /**
   * The dependency could not be reached before the watch existed (an instance starting during an
   * outage): down from now on, asked again with the usual backoff, and `up` told once it answers.
   * The `down` is not told: whoever starts says so in words of its own.
   */
  startDown(): void {
    if (this.#down || this.#closed) return;
    this.#down = true;
    this.#scheduleRetry();
  }

  /** Stops the timers; nothing is asked or reported from now on, and calls are refused. */
  close(): void {
    this.#closed = true;
    if (this.#watch) clearInterval(this.#watch);
    if (this.#retry) clearTimeout(this.#retry);
    this.#watch = this.#retry = null;
  }

  /** Asks, unless a question is out, the dependency is down, or one ended less than PROBE_GAP_MS ago. */
  #askIfDue(): void {
    if (this.#asking || this.#down || this.#closed) return;
    if (performance.now() - this.#lastAnswerAt < PROBE_GAP_MS) return;
    void this.#ask();
  }

  #ask(): Promise<void> {
    const started = performance.now();
    const asking = this.#options.ask().then(
      () => {
        if (this.#closed) return;
        if (this.#options.waitingCalls === 'trusted')
          for (const call of this.#calls) if (call.since <= started) call.vouched = true;
        if (this.#down) {
          this.#down = false;
          this.#retryMs = RETRY_FIRST_MS;
          this.#tell({ kind: 'up' });
        }
      },
      (err: unknown) => {
        if (this.#closed) return;
        // Slow, not gone: other calls were answered while this question waited.
        if (!this.#down && err instanceof Unanswered && this.#lastLifeAt >= started) return;
        if (!this.#down) {
          this.#down = true;
          this.#tell({ kind: 'down', err });
          for (const call of this.#calls) call.abort();
          try {
            this.#options.onDown?.(err);
          } catch {
            // What the dependency could not drop it drops at its next failure; the watch goes on.
          }
        }
        this.#scheduleRetry();
      },
    );
    this.#asking = asking.finally(() => {
      this.#asking = null;
      this.#lastAnswerAt = performance.now();
    });
    return this.#asking;
  }

  /**
   * Reports down or up. A report that throws (a log that can't be written) is dropped: it must not
   * stop the watch from cutting calls and asking again, nor end the process as an unhandled
   * rejection.
   */
  #tell(event: OutageEvent): void {
    try {
      this.#report(event);
    } catch {
      // Nothing else to tell it to.
    }
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (!this.#asking) void this.#ask();
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
          this.#askIfDue();
          return;
        }
      }
    }, WATCH_TICK_MS);
    this.#watch.unref();
  }
}
