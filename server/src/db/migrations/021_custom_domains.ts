/**
 * Custom domains (docs/product.md "Custom domains"): a domain an owner attached to a project, the
 * token its DNS must show to prove control, when that proof was last seen, and an admin's approval
 * when the platform requires one. A domain may be pending on several projects at once (claiming a
 * name proves nothing), but verified on one only: the partial unique index holds that on both
 * engines, so two checks racing cannot both win.
 */
import { type Kysely, sql } from 'kysely';
import { idColumn, type MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  await idColumn(db.schema.createTable('custom_domains'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // Lower-case ASCII (an IDN in its xn-- form), no trailing dot.
    .addColumn('domain', 'text', (c) => c.notNull())
    // The value of the _sitehall.{domain} TXT record that proves control.
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'text')
    .addColumn('approved_at', 'text')
    .addColumn('approved_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('custom_domains_project_domain')
    .on('custom_domains')
    .columns(['project_id', 'domain'])
    .unique()
    .execute();
  await db.schema
    .createIndex('custom_domains_verified_domain')
    .on('custom_domains')
    .column('domain')
    .unique()
    .where(sql.ref('verified_at'), 'is not', null)
    .execute();
}
