/**
 * API tokens (hashes only) and unfinished digest deploys (docs/product.md "Deploy from the command
 * line"). A deploy row holds its manifest until it is finished or expires.
 */
import type { Kysely } from 'kysely';
import { idColumn, type MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  await idColumn(db.schema.createTable('api_tokens'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_tokens_user').on('api_tokens').column('user_id').execute();

  await db.schema
    .createTable('deploys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('project_name', 'text')
    .addColumn('description', 'text')
    .addColumn('manifest', 'text', (c) => c.notNull())
    .addColumn('received_bytes', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
      c.notNull().defaultTo(0),
    )
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deploys_expires').on('deploys').column('expires_at').execute();
}
