import { type Kysely, sql } from 'kysely';
import { idColumn, type MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  const big = dialect === 'postgres' ? 'bigint' : 'integer';

  await idColumn(db.schema.createTable('users'), dialect)
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('username_key', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.unique())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'user')`))
    .addColumn('avatar', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_login_at', 'text')
    .execute();

  await idColumn(db.schema.createTable('sessions'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('remember', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();

  await idColumn(db.schema.createTable('projects'), dialect)
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'approved', 'published', 'rejected')`),
    )
    .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('live_deployment_id', 'integer')
    .addColumn('latest_deployment_id', 'integer')
    .addColumn('featured', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('view_count', big, (c) => c.notNull().defaultTo(0))
    .addColumn('download_count', big, (c) => c.notNull().defaultTo(0))
    .addColumn('approved_at', 'text')
    .addColumn('approved_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('published_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('projects_owner').on('projects').columns(['owner_id', 'created_at']).execute();
  await db.schema.createIndex('projects_status').on('projects').columns(['status', 'created_at']).execute();
  await db.schema
    .createIndex('projects_live')
    .on('projects')
    .columns(['live_deployment_id', 'is_public'])
    .execute();

  await idColumn(db.schema.createTable('deployments'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'approved', 'rejected', 'superseded')`),
    )
    .addColumn('upload_type', 'text', (c) => c.notNull())
    .addColumn('file_count', 'integer', (c) => c.notNull())
    .addColumn('total_size', big, (c) => c.notNull())
    .addColumn('entry_file', 'text')
    .addColumn('content_check', 'text')
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('reviewed_at', 'text')
    .addColumn('reviewed_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('review_comment', 'text')
    .addUniqueConstraint('deployments_project_version', ['project_id', 'version'])
    .execute();

  await idColumn(db.schema.createTable('deployment_files'), dialect)
    .addColumn('deployment_id', 'integer', (c) =>
      c.notNull().references('deployments.id').onDelete('cascade'),
    )
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('size', big, (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('extension', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addUniqueConstraint('deployment_files_path', ['deployment_id', 'path'])
    .execute();
  await db.schema.createIndex('deployment_files_sha').on('deployment_files').column('sha256').execute();

  await idColumn(db.schema.createTable('review_comments'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('deployment_id', 'integer', (c) => c.references('deployments.id').onDelete('set null'))
    .addColumn('actor_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('review_comments_project').on('review_comments').column('project_id').execute();

  // Audit rows keep the actor's name so they stay readable after the account is deleted.
  await idColumn(db.schema.createTable('audit_logs'), dialect)
    .addColumn('actor_id', 'integer')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('detail', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_logs_created').on('audit_logs').column('created_at').execute();
  await db.schema
    .createIndex('audit_logs_action')
    .on('audit_logs')
    .columns(['action', 'created_at'])
    .execute();

  await idColumn(db.schema.createTable('preview_tokens'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('deployment_id', 'integer', (c) =>
      c.notNull().references('deployments.id').onDelete('cascade'),
    )
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('project_daily_views')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('views', big, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('project_daily_views_pk', ['project_id', 'day'])
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
