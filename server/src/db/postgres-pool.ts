/**
 * The PostgreSQL pool Kysely uses, made to live through outages (docs/decisions.md "Database
 * outages"). pg's own pool kills the process when an idle connection errors with nobody listening,
 * and waits forever for a server that has gone silent; this one
 *
 * - listens for errors on every connection, idle or checked out, so a terminated backend, a
 *   restart or a network cut is logged and the connection replaced, never a crash;
 * - bounds every wait: a new connection (`connectMs`), a connection from the pool (`acquireMs`),
 *   a statement (`statementMs`, on the server and, a little later, on the client);
 * - notices a server gone silent: while a query has waited more than PROBE_AFTER_MS for its
 *   answer, the pool asks the server `select 1` on a connection of its own (at most every
 *   PROBE_GAP_MS, each within `connectMs`). When that goes unanswered too the database is *down*:
 *   every connection is dropped (their queries fail at once), and until a probe succeeds again
 *   every query fails at once with DatabaseUnavailable (the API's 503), without waiting;
 * - is *closed* until the app has migrated the database (`open()`), so an instance that starts
 *   while PostgreSQL is unreachable answers 503 instead of querying missing tables.
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';

export interface PostgresTimeouts {
  /** Longest a new connection may take to open (also the probe's bound). */
  connectMs: number;
  /** Longest a query waits for a connection: a free one from the pool, or a new one. */
  acquireMs: number;
  /** Longest a statement may run (PostgreSQL's statement_timeout); 0 for no bound. */
  statementMs: number;
}

/**
 * For command-line tools (reset-password, restore, copying a database), which serve no requests:
 * patient with a busy server, and no bound on a statement (the app's bounds are in config.ts).
 */
export const TOOL_POSTGRES_TIMEOUTS: PostgresTimeouts = {
  connectMs: 10_000,
  acquireMs: 10_000,
  statementMs: 0,
};

/** A query unanswered this long makes the pool check, on a connection of its own, that the server is there. */
const PROBE_AFTER_MS = 300;
/** Between two such checks while queries keep waiting (a long statement is not an outage). */
const PROBE_GAP_MS = 250;
/** How often waiting queries are looked at. */
const WATCH_TICK_MS = 100;
/** Between probes while the database is down: doubling from the first, up to the last. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 2_000;

/** PostgreSQL can't be reached (or gave up on a statement): the request may be tried again later. */
export class DatabaseUnavailable extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`database unavailable: ${reason}`, options);
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
]);
/** Messages pg and pg-pool give lost, timed-out or unusable connections (they carry no code). */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Query read timeout',
  'is not queryable',
  'Connection ended',
];

/**
 * What kind of failure an error from pg is: `connection` (the server can't be reached or dropped
 * the connection: network errors, SQLSTATE class 08, 57P01-57P03 shutdowns, pg's own timeouts),
 * `busy` (it answered but can't take the work now: a statement cancelled by its timeout,
 * too many connections), or null for everything else (constraint violations and the like).
 */
export function databaseFailureKind(err: unknown): 'connection' | 'busy' | null {
  if (err instanceof DatabaseUnavailable) return err.reason === 'busy' ? 'busy' : 'connection';
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return 'connection';
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')
      return 'connection';
    if (code === '57014' || code === '53300') return 'busy';
  }
  if (CONNECTION_MESSAGES.some((m) => err.message.includes(m))) return 'connection';
  return null;
}

/** Any error that means "PostgreSQL can't serve this now", from this pool or straight from pg. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseFailureKind(err) !== null;
}

export type PoolEvent =
  | { kind: 'down'; err: unknown }
  | { kind: 'up' }
  | { kind: 'connection-error'; err: unknown };

interface Waiter {
  reject(err: Error): void;
}

/** Destroys a client's socket: its queries fail at once, and the pool drops it. */
function destroyClient(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

export class GuardedPool implements PostgresPool {
  readonly #config: pg.PoolConfig;
  readonly #timeouts: PostgresTimeouts;
  readonly #pool: pg.Pool;
  /** Every connection the pool holds, so they can all be dropped when the server goes away. */
  readonly #clients = new Set<pg.Client>();
  readonly #wrapped = new WeakMap<pg.Client, PostgresPoolClient>();
  readonly #waiters = new Set<Waiter>();
  #open: boolean;
  #down = false;
  #probing: Promise<boolean> | null = null;
  #probeClient: pg.Client | null = null;
  #lastProbeEnd = 0;
  /** When each query now waiting for its answer was sent. */
  readonly #waiting = new Set<{ since: number }>();
  #watch: NodeJS.Timeout | null = null;
  #retry: NodeJS.Timeout | null = null;
  #ended = false;
  #onEvent: (event: PoolEvent) => void = () => {};

  constructor(config: pg.PoolConfig, timeouts: PostgresTimeouts, opts: { open: boolean }) {
    this.#config = config;
    this.#timeouts = timeouts;
    this.#open = opts.open;
    const connectMs = timeouts.connectMs;
    // pg-pool bounds a new connection and a wait for a free one with one option (the acquire
    // bound); the client's own option bounds the connection itself.
    class BoundedClient extends pg.Client {
      constructor(clientConfig?: pg.ClientConfig) {
        super({ ...clientConfig, connectionTimeoutMillis: connectMs });
      }
    }
    this.#pool = new pg.Pool({
      ...config,
      Client: BoundedClient,
      connectionTimeoutMillis: timeouts.acquireMs,
      ...(timeouts.statementMs > 0
        ? {
            statement_timeout: timeouts.statementMs,
            // The server cancels a statement at statementMs and the connection stays usable; the
            // client gives up a little later only when the server did not answer at all.
            query_timeout: timeouts.statementMs + 2_000,
          }
        : {}),
    });
    this.#pool.on('error', (err) => this.#connectionError(err));
    this.#pool.on('connect', (client) => {
      this.#clients.add(client);
      // Errors of a checked-out client have no listener in pg-pool: without this one, a backend
      // terminated between two queries of a transaction would end the process.
      client.on('error', (err) => this.#connectionError(err));
      client.once('end', () => this.#clients.delete(client));
    });
  }

  /** Where connection errors and down/up changes are told (the app's log). */
  reportTo(fn: (event: PoolEvent) => void): void {
    this.#onEvent = fn;
  }

  /** Whether queries may run: opened by the app, and not down. */
  get available(): boolean {
    return this.#open && !this.#down && !this.#ended;
  }

  /** Lets queries through (the app has migrated the database). */
  open(): void {
    this.#open = true;
  }

  async connect(): Promise<PostgresPoolClient> {
    if (!this.available) throw new DatabaseUnavailable(this.#open ? 'down' : 'not ready');
    let waiter: Waiter | undefined;
    const abandoned = new Promise<never>((_, reject) => {
      waiter = { reject };
      this.#waiters.add(waiter);
    });
    const connecting = this.#pool.connect();
    try {
      const client = await Promise.race([connecting, abandoned]);
      return this.#wrap(client);
    } catch (err) {
      // Given up (the database went down meanwhile): a connection that still arrives goes back.
      connecting.then(
        (client) => client.release(true),
        () => {},
      );
      if (err instanceof DatabaseUnavailable) throw err;
      if (databaseFailureKind(err) === 'connection') {
        this.#suspect();
        throw new DatabaseUnavailable('connection', { cause: err });
      }
      throw err;
    } finally {
      this.#waiters.delete(waiter!);
    }
  }

  #wrap(client: pg.PoolClient): PostgresPoolClient {
    const known = this.#wrapped.get(client);
    if (known) return known;
    let broken: Error | undefined;
    const query = (...args: unknown[]): unknown => {
      const result = (client.query as (...a: unknown[]) => unknown)(...args);
      if (!(result instanceof Promise)) return result;
      const entry = { since: performance.now() };
      this.#watchQuery(entry);
      return result.then(
        (value) => {
          this.#waiting.delete(entry);
          return value;
        },
        (err: unknown) => {
          this.#waiting.delete(entry);
          const kind = databaseFailureKind(err);
          if (kind === 'connection') {
            // Whatever state the connection is in, it is not used again.
            broken = err instanceof Error ? err : new Error(String(err));
            this.#suspect();
          }
          throw kind ? new DatabaseUnavailable(kind, { cause: err }) : err;
        },
      );
    };
    const wrapped = {
      query: query as PostgresPoolClient['query'],
      release: () => {
        const err = broken;
        broken = undefined;
        client.release(err);
      },
    };
    this.#wrapped.set(client, wrapped);
    return wrapped;
  }

  #connectionError(err: unknown): void {
    // Dropping every connection when the database goes down makes each of them report it: once is enough.
    if (!this.#down) this.#onEvent({ kind: 'connection-error', err });
    this.#suspect();
  }

  #watchQuery(entry: { since: number }): void {
    this.#waiting.add(entry);
    if (this.#watch) return;
    this.#watch = setInterval(() => {
      if (this.#waiting.size === 0) {
        clearInterval(this.#watch!);
        this.#watch = null;
        return;
      }
      const at = performance.now();
      if (at - this.#lastProbeEnd < PROBE_GAP_MS) return;
      for (const w of this.#waiting) {
        if (at - w.since >= PROBE_AFTER_MS) {
          this.#suspect();
          return;
        }
      }
    }, WATCH_TICK_MS);
    this.#watch.unref();
  }

  /** Something looked wrong: ask the server (one check at a time). */
  #suspect(): void {
    if (this.#probing || this.#down || this.#ended) return;
    this.#probing = this.probe().then((reachable) => {
      this.#probing = null;
      this.#lastProbeEnd = performance.now();
      if (!reachable) this.#goDown(new Error('the database did not answer select 1'));
      return reachable;
    });
  }

  /**
   * Whether the server answers `select 1` within connectMs, on the pool's own probe connection
   * (opened when needed). A server that answers with an error other than a connection one (too
   * many connections, say) is there.
   */
  async probe(): Promise<boolean> {
    let client = this.#probeClient;
    const deadline = setTimeout(() => {
      if (client) destroyClient(client);
    }, this.#timeouts.connectMs);
    try {
      if (!client) {
        const fresh = new pg.Client({ ...this.#config, connectionTimeoutMillis: this.#timeouts.connectMs });
        client = fresh;
        fresh.on('error', () => {
          if (this.#probeClient === fresh) this.#probeClient = null;
        });
        this.#probeClient = fresh;
        await fresh.connect();
      }
      await client.query('select 1');
      return true;
    } catch (err) {
      if (client) destroyClient(client);
      if (this.#probeClient === client) this.#probeClient = null;
      return databaseFailureKind(err) !== 'connection';
    } finally {
      clearTimeout(deadline);
    }
  }

  #goDown(err: unknown): void {
    if (this.#down || this.#ended) return;
    this.#down = true;
    if (this.#open) this.#onEvent({ kind: 'down', err });
    const gone = new DatabaseUnavailable('down', { cause: err });
    for (const waiter of this.#waiters) waiter.reject(gone);
    for (const client of this.#clients) destroyClient(client);
    this.#scheduleRetry(RETRY_FIRST_MS);
  }

  #scheduleRetry(ms: number): void {
    if (this.#ended) return;
    this.#retry = setTimeout(async () => {
      this.#retry = null;
      if (await this.probe()) {
        this.#down = false;
        if (this.#open) this.#onEvent({ kind: 'up' });
      } else {
        this.#scheduleRetry(Math.min(ms * 2, RETRY_MAX_MS));
      }
    }, ms);
    this.#retry.unref();
  }

  async end(): Promise<void> {
    this.#ended = true;
    if (this.#retry) clearTimeout(this.#retry);
    if (this.#watch) clearInterval(this.#watch);
    if (this.#probeClient) destroyClient(this.#probeClient);
    for (const waiter of this.#waiters) waiter.reject(new DatabaseUnavailable('closed'));
    // Connections to a silent server would never finish a polite goodbye: cut them after a while.
    const cut = setTimeout(() => {
      for (const client of this.#clients) destroyClient(client);
    }, this.#timeouts.connectMs);
    try {
      await this.#pool.end();
    } finally {
      clearTimeout(cut);
    }
  }
}
