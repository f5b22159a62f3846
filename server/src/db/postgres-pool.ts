/**
 * The PostgreSQL pool Kysely uses, made to live through outages (docs/decisions/faults.md "Database
 * outages"). pg's own pool kills the process when an idle connection errors with nobody listening,
 * and waits forever for a server that has gone silent; this one
 *
 * - listens for errors on every connection, idle or checked out, so a terminated backend, a
 *   restart or a network cut is logged and the connection replaced, never a crash;
 * - bounds every wait: a new connection (`connectMs`), a connection from the pool (`acquireMs`),
 *   a statement (`statementMs`, on the server and, a little later, on the client);
 * - notices a server gone silent, with the outage watch it shares with the S3 store
 *   (domain/outage-watch.ts): a query waiting too long for its answer, or a lost connection, makes
 *   the pool ask the server `select 1` on a connection of its own (within `connectMs`). When that
 *   goes unanswered too the database is *down*: every connection is dropped (their queries fail at
 *   once), and until the question is answered again every query fails at once with
 *   DatabaseUnavailable (the API's 503), without waiting. A long statement is asked about for as
 *   long as it waits, and a lost connection at once (`waitingCalls`, `afterFailure`);
 * - is *closed* until the app has migrated the database (`open()`), so an instance that starts
 *   while PostgreSQL is unreachable answers 503 instead of querying missing tables.
 */
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { askWithin, NETWORK_ERROR_CODES, type OutageEvent, OutageWatch } from '../domain/outage-watch.js';
import { keptKind, MAX_KEPT_PER_CONNECTION, MAX_PREPARED_PER_CONNECTION } from './prepared.js';

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

/** PostgreSQL can't be reached (or gave up on a statement): the request may be tried again later. */
export class DatabaseUnavailable extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`database unavailable: ${reason}`, options);
  }
}

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
 * too many connections, a transaction ended to break a deadlock or a serialization conflict: 503,
 * to be tried again, not a 500), or null for everything else (constraint violations and the like).
 */
export function databaseFailureKind(err: unknown): 'connection' | 'busy' | null {
  if (err instanceof DatabaseUnavailable) return err.reason === 'busy' ? 'busy' : 'connection';
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_ERROR_CODES.has(code)) return 'connection';
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')
      return 'connection';
    if (code === '57014' || code === '53300' || code === '40P01' || code === '40001') return 'busy';
  }
  if (CONNECTION_MESSAGES.some((m) => err.message.includes(m))) return 'connection';
  return null;
}

/** Any error that means "PostgreSQL can't serve this now", from this pool or straight from pg. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseFailureKind(err) !== null;
}

export type PoolEvent =
  | OutageEvent
  | { kind: 'connection-error'; err: unknown }
  /** A statement kept prepared was not where it was prepared (a pooler between): none is kept from now on. */
  | { kind: 'prepared-off'; err: unknown };

/**
 * What PostgreSQL answers when a connection's prepared statement is not on the server the
 * statement reached (26000: it does not exist; 42P05: another of the pooler's clients made one of
 * that name first): pgbouncer in transaction mode before 1.21, or with max_prepared_statements = 0.
 */
const PREPARED_ELSEWHERE = new Set(['26000', '42P05']);

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
  #probeClient: pg.Client | null = null;
  /** Watches the queries waiting for their answer; knows whether the database is down. */
  readonly #watch: OutageWatch;
  #onEvent: (event: PoolEvent) => void = () => {};
  /** Whether statements are kept prepared (db/prepared.ts): until a pooler between loses one. */
  #keepPrepared = true;

  constructor(config: pg.PoolConfig, timeouts: PostgresTimeouts, opts: { open: boolean }) {
    this.#config = config;
    this.#timeouts = timeouts;
    this.#open = opts.open;
    this.#watch = new OutageWatch({
      ask: () => askWithin((signal) => this.#question(signal), timeouts.connectMs),
      onDown: (err) => {
        const gone = new DatabaseUnavailable('down', { cause: err });
        for (const waiter of this.#waiters) waiter.reject(gone);
        for (const client of this.#clients) destroyClient(client);
      },
      waitingCalls: 'rechecked',
      afterFailure: 'at once',
    });
    // Before the app has migrated the database (not open), its own start-up line says it.
    this.#watch.reportTo((event) => {
      if (this.#open) this.#onEvent(event);
    });
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
      // The server cancels a statement at statementMs and the connection stays usable; the client
      // gives up a little later only when the server did not answer at all (#wrap's read bound).
      ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
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
    return this.#open && this.#watch.available;
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
        this.#watch.suspect();
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
    const readMs = this.#timeouts.statementMs > 0 ? this.#timeouts.statementMs + 2_000 : 0;
    // The statements this connection keeps prepared (db/prepared.ts), by name, of each kind.
    const kept = { prepared: new Set<string>(), kept: new Set<string>() };
    const most = { prepared: MAX_PREPARED_PER_CONNECTION, kept: MAX_KEPT_PER_CONNECTION };
    const nameFor = (text: string, values: unknown[] | undefined): string | undefined => {
      const kind = this.#keepPrepared ? keptKind(text, values) : undefined;
      if (kind === undefined) return undefined;
      const name = `sitehall_${createHash('sha1').update(text).digest('base64url')}`;
      const names = kept[kind];
      if (names.has(name)) return name;
      if (names.size >= most[kind]) return undefined;
      names.add(name);
      return name;
    };
    const ask = (text: string, values: unknown[] | undefined) => {
      const name = nameFor(text, values);
      if (name === undefined) return askedWithin(client, text, values, readMs);
      // A marked statement only reads (db/prepared.ts), so asking it again unnamed is safe.
      return askedWithin(client, text, values, readMs, name).catch((err: unknown) => {
        const code = (err as { code?: unknown }).code;
        if (typeof code !== 'string' || !PREPARED_ELSEWHERE.has(code)) throw err;
        if (this.#keepPrepared) {
          this.#keepPrepared = false;
          this.#onEvent({ kind: 'prepared-off', err });
        }
        return askedWithin(client, text, values, readMs);
      });
    };
    const query = (...args: unknown[]): unknown => {
      const result =
        typeof args[0] === 'string' && args.length <= 2
          ? ask(args[0], args[1] as unknown[] | undefined)
          : (client.query as (...a: unknown[]) => unknown)(...args);
      if (!(result instanceof Promise)) return result;
      const waiting = this.#watch.track();
      return result.then(
        (value) => {
          waiting.finish(true);
          return value;
        },
        (err: unknown) => {
          const kind = databaseFailureKind(err);
          // An error of the server's own (a constraint, a cancelled statement) is an answer too.
          waiting.finish(kind !== 'connection');
          if (kind === 'connection') {
            // Whatever state the connection is in, it is not used again.
            broken = err instanceof Error ? err : new Error(String(err));
            this.#watch.suspect();
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
    if (!this.#watch.down) this.#onEvent({ kind: 'connection-error', err });
    this.#watch.suspect();
  }

  /**
   * `select 1` on the pool's own probe connection (opened when needed): resolves when the server
   * answers, also with an error of its own (too many connections: it is there); rejects when the
   * connection is refused or lost. `signal` (the watch's bound) drops the connection.
   */
  async #question(signal: AbortSignal): Promise<void> {
    let client = this.#probeClient;
    const drop = () => {
      if (client) destroyClient(client);
    };
    signal.addEventListener('abort', drop, { once: true });
    try {
      if (!client) {
        // The watch's bound decides; the client's own only keeps a connection from waiting forever.
        const fresh = new pg.Client({
          ...this.#config,
          connectionTimeoutMillis: 4 * this.#timeouts.connectMs,
        });
        client = fresh;
        fresh.on('error', () => {
          if (this.#probeClient === fresh) this.#probeClient = null;
        });
        this.#probeClient = fresh;
        await fresh.connect();
      }
      await client.query('select 1');
    } catch (err) {
      drop();
      if (this.#probeClient === client) this.#probeClient = null;
      if (databaseFailureKind(err) === 'connection') throw err;
    } finally {
      signal.removeEventListener('abort', drop);
    }
  }

  async end(): Promise<void> {
    this.#watch.close();
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

/**
 * A statement's answer, given up on after `readMs` (0: never) with pg's own message for it (the
 * connection is then dropped, as any lost one: databaseFailureKind). The statement is handed to
 * pg with its callback, in a promise of our own, rather than through pg's promise or pg's
 * `query_timeout`: both set the statement's callback after pg has made it, and with that V8 came
 * to keep every statement's rows and messages through the young generation's collections until
 * the next full one (750 KB surviving each scavenge of the showcase bench on PostgreSQL, 3.2 ms a
 * scavenge; 50 KB and 0.8 ms this way: docs/benchmarks.md "Showcase"). Errors get the stack of
 * the code that awaited them, as pg's promise gives. `name`: the statement is kept prepared on this
 * connection under that name (pg parses it only the first time).
 */
function askedWithin(
  client: pg.PoolClient,
  text: string,
  values: unknown[] | undefined,
  readMs: number,
  name?: string,
): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const timer = readMs > 0 ? setTimeout(() => reject(new Error('Query read timeout')), readMs) : undefined;
    const answered = (err: Error | null, result: pg.QueryResult) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(result);
    };
    if (name !== undefined) client.query({ name, text, values: values ?? [] }, answered);
    else if (values === undefined) client.query(text, answered);
    else client.query(text, values, answered);
  }).catch((err: unknown) => {
    if (err instanceof Error) Error.captureStackTrace(err);
    throw err;
  });
}
