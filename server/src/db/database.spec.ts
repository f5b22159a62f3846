import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from './database.js';

describe('SQLite statements kept by SQL text', () => {
  let handle: DatabaseHandle | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-db-spec-'));
  afterEach(async () => {
    await handle?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function open() {
    handle = openDatabase({ kind: 'sqlite', file: path.join(dir, `${Date.now()}.db`) });
    const { db } = handle;
    await sql`create table t (n integer not null)`.execute(db);
    await sql`insert into t (n) select value from json_each('[1,2,3]')`.execute(db);
    return db;
  }

  it('answers the same query again with fresh parameters and fresh results', async () => {
    const db = await open();
    const over = (n: number) => sql<{ n: number }>`select n from t where n > ${n} order by n`.execute(db);
    expect((await over(0)).rows.map((r) => r.n)).toEqual([1, 2, 3]);
    expect((await over(2)).rows.map((r) => r.n)).toEqual([3]);
    await sql`insert into t (n) values (${4})`.execute(db);
    await sql`insert into t (n) values (${5})`.execute(db);
    expect((await over(3)).rows.map((r) => r.n)).toEqual([4, 5]);
    // A write reports its own changes each time.
    const del = (n: number) => sql`delete from t where n > ${n}`.execute(db);
    expect((await del(4)).numAffectedRows).toBe(1n);
    expect((await del(2)).numAffectedRows).toBe(2n);
  });
});
