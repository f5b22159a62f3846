/**
 * Migrating while others change the same PostgreSQL database: parallel test runs drop their
 * schemas all the time, and an operator may share the database with other applications.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import { freshDatabase, tempDir, usingPostgres } from './helpers.js';

const url = process.env.TEST_DATABASE_URL;

let churn: pg.Client;
beforeAll(async () => {
  if (!usingPostgres) return;
  churn = new pg.Client({ connectionString: url });
  await churn.connect();
});
afterAll(async () => {
  await churn?.end();
});

test.skipIf(!usingPostgres)(
  'migrations run while other schemas, tables and columns are created and dropped beside them',
  async () => {
    // Another client creates and drops schemas full of tables with serial columns, as fast as it
    // can, while this one migrates fresh schemas: Kysely's own check read every schema's catalog
    // and failed with 3F000, 42P01 or 42703 whenever a drop landed during the read.
    let churning = true;
    let dropped = 0;
    const churnLoop = (async () => {
      for (let i = 0; churning; i++) {
        const name = `churn_${process.pid}_${i}`;
        await churn.query(`create schema ${name}`);
        for (let t = 0; t < 5; t++) {
          await churn.query(`create table ${name}.t${t} (id serial primary key, a int, b text)`);
        }
        await churn.query(`alter table ${name}.t0 drop column a`);
        await churn.query(`drop schema ${name} cascade`);
        dropped++;
      }
    })();
    try {
      for (let round = 0; round < 8; round++) {
        const { database, drop } = await freshDatabase();
        const handle = openDatabase(database);
        try {
          await migrateToLatest(handle);
          const users = await handle.db.selectFrom('users').select('id').execute();
          expect(users).toEqual([]);
        } finally {
          await handle.close();
          await drop();
        }
      }
    } finally {
      churning = false;
      await churnLoop;
    }
    // The churn ran beside the migrations, not before or after them.
    expect(dropped).toBeGreaterThan(8);
  },
  120_000,
);

test('migrating twice changes nothing the second time, on a new file as on an old one', async () => {
  const { database, drop } = await freshDatabase();
  const dir = tempDir();
  const config =
    database.kind === 'postgres' ? database : { kind: 'sqlite' as const, file: path.join(dir, 'db.sqlite') };
  const handle = openDatabase(config);
  try {
    await migrateToLatest(handle);
    await handle.db
      .insertInto('settings')
      .values({ key: 'probe', value: '1', updated_at: new Date().toISOString() })
      .execute();
    await migrateToLatest(handle);
    const rows = await handle.db.selectFrom('settings').selectAll().where('key', '=', 'probe').execute();
    expect(rows).toHaveLength(1);
  } finally {
    await handle.close();
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
