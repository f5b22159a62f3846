/**
 * Turns of the render queue between accounts (docs/render.md "Jobs"): for each account whose
 * render was ever taken, the turn it was last taken in (one more than the highest turn then). The
 * next job taken is the oldest due one of the account with the lowest turn, none counting as 0, so
 * accounts are served round robin and one that queued many renders can't hold another's behind
 * them. A row outlives its account's jobs on purpose: deleting projects doesn't give an account its
 * turn back. Accounts are deleted only without projects, and their ids are never reused.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('render_turns')
    .addColumn('owner_id', 'integer', (c) => c.primaryKey())
    .addColumn('turn', 'integer', (c) => c.notNull())
    .execute();
  // The next turn is read from it at each take.
  await db.schema.createIndex('render_turns_turn').on('render_turns').column('turn').execute();
}
