/**
 * A migrated PostgreSQL database per test app, copied from a template instead of migrated each time
 * (docs/decisions/tests.md "A test app's PostgreSQL database").
 *
 * Creating a schema and running every migration in it cost about 0.5 CPU-s of PostgreSQL and Node
 * per app, and dropping it 0.1; copying a migrated database's files (`strategy file_copy`) and
 * dropping the copy cost 0.1 together. The template is built once per set of migrations (its name
 * carries a hash of their sources), by one worker at a time, and nobody connects to it afterwards:
 * PostgreSQL copies only a database nobody is connected to.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';

/** The schema the app's tables live in, in the template and so in every copy. */
export const TEMPLATE_SCHEMA = 'sitehall';

const MIGRATIONS = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

/** The template's name: a hash of the migrations' sources, so a changed migration makes a new one. */
function templateName(): string {
  const hash = createHash('sha256');
  for (const name of fs.readdirSync(MIGRATIONS).sort()) {
    hash.update(name);
    hash.update(fs.readFileSync(path.join(MIGRATIONS, name)));
  }
  return `sitehall_tpl_${hash.digest('hex').slice(0, 16)}`;
}

/** The URL of database `name` on the server of `url`. */
function databaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withClient<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

let template: Promise<string> | undefined;

/** The migrated template of this set of migrations, built if no worker has built it yet. */
function migratedTemplate(url: string): Promise<string> {
  template ??= withClient(url, async (c) => {
    const name = templateName();
    // One builder at a time across the workers; the others find it made.
    await c.query('select pg_advisory_lock(hashtext($1))', [name]);
    try {
      const found = await c.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount) return name;
      // Built under another name and renamed when complete: a builder stopped midway leaves no
      // template that lacks migrations.
      const building = `${name}_${randomBytes(4).toString('hex')}`;
      await c.query(`create database ${building}`);
      const buildingUrl = databaseUrl(url, building);
      await withClient(buildingUrl, (b) => b.query(`create schema ${TEMPLATE_SCHEMA}`));
      const handle = openDatabase({ kind: 'postgres', url: buildingUrl, schema: TEMPLATE_SCHEMA });
      try {
        await migrateToLatest(handle);
      } finally {
        await handle.close();
      }
      await c.query(`alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await c.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  });
  template.catch(() => {
    template = undefined;
  });
  return template;
}

/** A database of its own, migrated to the latest migration; `drop` removes it. */
export async function migratedPostgresDatabase(
  url: string,
): Promise<{ database: { kind: 'postgres'; url: string; schema: string }; drop: () => Promise<void> }> {
  const source = await migratedTemplate(url);
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withClient(url, (c) => c.query(`create database ${name} template ${source} strategy file_copy`));
  return {
    database: { kind: 'postgres', url: databaseUrl(url, name), schema: TEMPLATE_SCHEMA },
    drop: () =>
      withClient(url, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}

/**
 * An empty database of its own (no schema made in it), as a wiped install's server holds: what a
 * restore fills. Its tables will be in TEMPLATE_SCHEMA, as the backup's were.
 */
export async function emptyPostgresDatabase(
  url: string,
): Promise<{ database: { kind: 'postgres'; url: string; schema: string }; drop: () => Promise<void> }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withClient(url, (c) => c.query(`create database ${name}`));
  return {
    database: { kind: 'postgres', url: databaseUrl(url, name), schema: TEMPLATE_SCHEMA },
    drop: () =>
      withClient(url, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}
