/**
 * A site's own routing (docs/product.md "A site's own routing"): per version, the text of its
 * `_redirects` and `_headers` as uploaded and checked (JSON {redirects?, headers?}, null when it
 * has neither); per project, the owner's SPA fallback and clean URLs switches, both off.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema.alterTable('deployments').addColumn('site_rules', 'text').execute();
  await db.schema
    .alterTable('projects')
    .addColumn('spa_fallback', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('projects')
    .addColumn('clean_urls', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
