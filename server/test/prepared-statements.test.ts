/**
 * Statements kept prepared on a PostgreSQL connection (db/prepared.ts, docs/decisions/data.md
 * "Lists kept prepared", "Searches kept prepared"): a statement marked PREPARED without parameters
 * is parsed and planned once per connection; one with parameters, or unmarked, never is; one
 * marked KEPT is parsed once with its values as parameters, asked by name after that; a connection
 * keeps a bounded number of each kind, apart, so no stream of distinct pages or searches can grow
 * a connection's memory or take the other kind's places; a connection that is lost and replaced
 * prepares its statements again instead of naming ones its server never saw; and a server that
 * loses them under the connection (a pooler between) turns them off.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseUnavailable, GuardedPool } from '../src/db/postgres-pool.js';
import { KEPT, MAX_KEPT_PER_CONNECTION, MAX_PREPARED_PER_CONNECTION, PREPARED } from '../src/db/prepared.js';
import { PG_URL } from './faults/support.js';
import { usingPostgres } from './helpers.js';

const pools: GuardedPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.end();
});

/** A pool of one connection, as the app's are bounded. */
function onePool(): GuardedPool {
  const pool = new GuardedPool(
    { connectionString: PG_URL, max: 1 },
    { connectMs: 2_000, acquireMs: 5_000, statementMs: 10_000 },
    { open: true },
  );
  pools.push(pool);
  return pool;
}

/** Runs one statement on the pool's connection. */
async function ask(pool: GuardedPool, text: string, values: unknown[] = []) {
  const client = await pool.connect();
  try {
    return (await client.query(text, values)) as unknown as { rows: Array<Record<string, unknown>> };
  } finally {
    client.release();
  }
}

/** The statements the pool's one connection holds prepared. */
async function preparedOn(pool: GuardedPool): Promise<string[]> {
  const r = await ask(pool, 'select statement from pg_prepared_statements order by prepare_time');
  return r.rows.map((row) => String(row.statement));
}

describe.skipIf(!usingPostgres)('statements kept prepared', () => {
  it('prepares a marked statement without parameters once, and nothing else', async () => {
    const pool = onePool();
    const marked = `${PREPARED}select 41 + 1 as n`;
    for (let i = 0; i < 3; i++) expect((await ask(pool, marked)).rows).toEqual([{ n: 42 }]);
    expect(await preparedOn(pool)).toEqual([marked]);
    // With parameters: planned for its values each time, never kept.
    expect((await ask(pool, `${PREPARED}select $1::int + 1 as n`, [6])).rows).toEqual([{ n: 7 }]);
    // Unmarked.
    expect((await ask(pool, 'select 2 as n')).rows).toEqual([{ n: 2 }]);
    expect(await preparedOn(pool)).toEqual([marked]);
  });

  it(`keeps at most ${MAX_PREPARED_PER_CONNECTION} on a connection, and answers every one`, async () => {
    const pool = onePool();
    const count = MAX_PREPARED_PER_CONNECTION + 9;
    for (let i = 0; i < count; i++) {
      expect((await ask(pool, `${PREPARED}select ${i} as n`)).rows).toEqual([{ n: i }]);
    }
    // Asked again: the kept ones by name, the others as any statement.
    for (let i = 0; i < count; i++) {
      expect((await ask(pool, `${PREPARED}select ${i} as n`)).rows).toEqual([{ n: i }]);
    }
    const kept = await preparedOn(pool);
    expect(kept).toHaveLength(MAX_PREPARED_PER_CONNECTION);
    expect(kept).toEqual(
      Array.from({ length: MAX_PREPARED_PER_CONNECTION }, (_, i) => `${PREPARED}select ${i} as n`),
    );
  });

  it('keeps a statement marked kept parsed once with its values as parameters', async () => {
    const pool = onePool();
    const marked = `${KEPT}select $1::int + 1 as n`;
    for (let v = 0; v < 8; v++) expect((await ask(pool, marked, [v])).rows).toEqual([{ n: v + 1 }]);
    // One statement, asked eight times by name: PostgreSQL's plan cache made each plan.
    const r = await ask(
      pool,
      'select statement, generic_plans + custom_plans as plans from pg_prepared_statements',
    );
    expect(r.rows).toEqual([{ statement: marked, plans: 8 }]);
  });

  it(`keeps at most ${MAX_KEPT_PER_CONNECTION} kept statements on a connection, apart from the ${MAX_PREPARED_PER_CONNECTION} planned once`, async () => {
    const pool = onePool();
    const count = MAX_KEPT_PER_CONNECTION + 5;
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < count; i++) {
        expect((await ask(pool, `${KEPT}select $1::int + ${i} as n`, [1])).rows).toEqual([{ n: i + 1 }]);
      }
    }
    // The planned-once kind still has every place of its own.
    for (let i = 0; i < MAX_PREPARED_PER_CONNECTION; i++) {
      expect((await ask(pool, `${PREPARED}select ${i} as n`)).rows).toEqual([{ n: i }]);
    }
    const kept = await preparedOn(pool);
    expect(kept.filter((t) => t.startsWith(KEPT))).toEqual(
      Array.from({ length: MAX_KEPT_PER_CONNECTION }, (_, i) => `${KEPT}select $1::int + ${i} as n`),
    );
    expect(kept.filter((t) => t.startsWith(PREPARED))).toHaveLength(MAX_PREPARED_PER_CONNECTION);
  });

  it('prepares again on the connection that replaces a lost one', async () => {
    const pool = onePool();
    const marked = `${PREPARED}select pg_backend_pid() as pid`;
    const first = Number((await ask(pool, marked)).rows[0]!.pid);
    expect(await preparedOn(pool)).toEqual([marked]);
    // The backend ends under the pool (as an administrator's pg_terminate_backend or a restart would).
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      await admin.query('select pg_terminate_backend($1)', [first]);
    } finally {
      await admin.end();
    }
    // The lost connection's next statement fails as any lost one does, unless the pool has
    // already seen it go; the next connection prepares the statement afresh (its server has never
    // seen the name, and naming it unprepared would fail every time).
    const again = await ask(pool, marked).catch((err: unknown) => {
      expect(err).toBeInstanceOf(DatabaseUnavailable);
      return ask(pool, marked);
    });
    const second = Number(again.rows[0]!.pid);
    expect(second).not.toBe(first);
    expect(await preparedOn(pool)).toEqual([marked]);
  });

  it('asks a statement again unnamed when the server lost it (a pooler between), and keeps none after that', async () => {
    const pool = onePool();
    const events: string[] = [];
    pool.reportTo((event) => events.push(event.kind));
    const marked = `${PREPARED}select 5 as n`;
    await ask(pool, marked);
    expect(await preparedOn(pool)).toEqual([marked]);
    // What a pooler in transaction mode looks like to this connection: the next statement reaches a
    // server that has never seen the name.
    await ask(pool, 'deallocate all');
    expect((await ask(pool, marked)).rows).toEqual([{ n: 5 }]);
    expect(events).toEqual(['prepared-off']);
    expect((await ask(pool, `${PREPARED}select 6 as n`)).rows).toEqual([{ n: 6 }]);
    expect((await ask(pool, marked)).rows).toEqual([{ n: 5 }]);
    expect(await preparedOn(pool)).toEqual([]);
    expect(events).toEqual(['prepared-off']);
  });
});
