import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';
import type { NewUser, UserRow, UserUpdate } from '../db/types.js';

/**
 * The unique, case-insensitive form of a username: NFKC, so look-alike encodings and a name typed
 * in full width (ｆｕｚｚｅｒ, an input method's full-width mode) are one name
 * (docs/decisions/accounts.md "A name typed in full width").
 */
export function usernameKey(username: string): string {
  return username.trim().normalize('NFKC').toLowerCase();
}

/**
 * The key as it was before migration 040 (NFC only): an account whose folded key an earlier one
 * already held kept it, and is found by its name written exactly so.
 */
function unfoldedKey(username: string): string {
  return username.trim().normalize('NFC').toLowerCase();
}

/** The account a name stands for: the one keyed by it exactly as written, else by its folded form. */
function pickByName<R extends { username_key: string }>(rows: R[], name: string): R | undefined {
  const exact = unfoldedKey(name);
  const folded = usernameKey(name);
  return rows.find((r) => r.username_key === exact) ?? rows.find((r) => r.username_key === folded);
}

/** Whether a change takes an enabled administrator away (demotion, disabling or deletion). */
function removesAnAdmin(user: UserRow, patch: UserUpdate | 'delete'): boolean {
  if (user.role !== 'admin' || user.disabled) return false;
  return patch === 'delete' || (patch.role !== undefined && patch.role !== 'admin') || patch.disabled === 1;
}

/**
 * Whether the account still exists, read inside `trx` before something is added under it: on
 * PostgreSQL its row is share-locked until the commit, so deleting the account waits for that.
 */
export async function existsForNewRows(trx: DB, id: number, dialect: Dialect): Promise<boolean> {
  let q = trx.selectFrom('users').select('id').where('id', '=', id);
  if (dialect === 'postgres') q = q.forKeyShare();
  return (await q.executeTakeFirst()) !== undefined;
}

export function createUsersRepository(dialect: Dialect) {
  /**
   * The user row and whether someone other than them is an enabled admin, read inside `trx` with
   * every admin row locked, so two admins demoting each other at once can't both succeed. SQLite
   * needs no row locks: its write transactions already run one at a time (BEGIN IMMEDIATE).
   */
  async function lockAdmins(trx: DB, id: number) {
    let admins = trx
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'admin')
      .where('disabled', '=', 0)
      .orderBy('id');
    if (dialect === 'postgres') admins = admins.forNoKeyUpdate();
    const others = (await admins.execute()).filter((r) => r.id !== id).length;
    const user = await trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return { user, othersExist: others > 0 };
  }

  return {
    byId(db: DB, id: number): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** By username (case- and width-insensitive) or email. */
    async byLogin(db: DB, login: string): Promise<UserRow | undefined> {
      const keys = [...new Set([unfoldedKey(login), usernameKey(login)])];
      const rows = await db
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb.or([eb('username_key', 'in', keys), eb('email', '=', unfoldedKey(login))]))
        .orderBy('id')
        .execute();
      // A username has no @, an email always one: a login names one or the other.
      return pickByName(rows, login) ?? rows[0];
    },
    /** By username (case- and width-insensitive). */
    async byUsername(db: DB, username: string): Promise<UserRow | undefined> {
      const keys = [...new Set([unfoldedKey(username), usernameKey(username)])];
      const rows = await db.selectFrom('users').selectAll().where('username_key', 'in', keys).execute();
      return pickByName(rows, username);
    },
    byEmail(db: DB, email: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },
    async insert(db: DB, user: NewUser): Promise<UserRow> {
      return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
    },
    async update(db: DB, id: number, patch: UserUpdate): Promise<UserRow | undefined> {
      return db.updateTable('users').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
    },
    /** Applies an admin's change to an account unless it would leave no enabled administrator. */
    updateKeepingAnAdmin(db: DB, id: number, patch: UserUpdate): Promise<UserRow | 'missing' | 'last-admin'> {
      return db.transaction().execute(async (trx) => {
        const { user, othersExist } = await lockAdmins(trx, id);
        if (!user) return 'missing';
        if (removesAnAdmin(user, patch) && !othersExist) return 'last-admin';
        return (
          (await trx
            .updateTable('users')
            .set(patch)
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirst()) ?? 'missing'
        );
      });
    },
    /**
     * Deletes an account unless it owns projects (their sites would vanish with it) or is the last
     * enabled administrator; checked and done in one transaction, with the account's place in the
     * render queue's turns (render_turns has no foreign key to cascade by).
     */
    deleteIfUnowned(db: DB, id: number): Promise<UserRow | 'missing' | 'last-admin' | 'has-projects'> {
      return db.transaction().execute(async (trx) => {
        const { user, othersExist } = await lockAdmins(trx, id);
        if (!user) return 'missing';
        if (removesAnAdmin(user, 'delete') && !othersExist) return 'last-admin';
        // On PostgreSQL the account's row is held before its projects are counted: an upload
        // committing its first project holds the row (lockQuota, existsForNewRows), so the count
        // waits for that commit and finds the project. Counted first, the delete found none, waited
        // on the row only to delete it, and took the new project with it (the cascade).
        if (dialect === 'postgres')
          await trx.selectFrom('users').select('id').where('id', '=', id).forUpdate().execute();
        const owned = await trx
          .selectFrom('projects')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('owner_id', '=', id)
          .executeTakeFirstOrThrow();
        if (Number(owned.n) > 0) return 'has-projects';
        await trx.deleteFrom('render_turns').where('owner_id', '=', id).execute();
        await trx.deleteFrom('users').where('id', '=', id).execute();
        return user;
      });
    },
    /** The account's own storage quota (null = the platform's), or undefined when the account is gone. */
    async quotaOf(trx: DB, userId: number): Promise<number | null | undefined> {
      const row = await trx
        .selectFrom('users')
        .select('storage_quota_bytes')
        .where('id', '=', userId)
        .executeTakeFirst();
      return row ? row.storage_quota_bytes : undefined;
    },
    /**
     * The same, inside an upload's commit, holding the account's row until the transaction ends so
     * uploads to one account are checked one at a time. NO KEY UPDATE, not UPDATE: signing in and
     * other rows that reference the account (their foreign keys take KEY SHARE) are not held up.
     * SQLite's write transactions already run one at a time.
     */
    async lockQuota(trx: DB, userId: number): Promise<number | null | undefined> {
      let query = trx.selectFrom('users').select('storage_quota_bytes').where('id', '=', userId);
      if (dialect === 'postgres') query = query.forNoKeyUpdate();
      const row = await query.executeTakeFirst();
      return row ? row.storage_quota_bytes : undefined;
    },
    /** All accounts, administrators, disabled accounts (the admin dashboard). */
    async countsByRole(db: DB): Promise<{ total: number; admins: number; disabled: number }> {
      const row = await db
        .selectFrom('users')
        .select([
          (eb) => eb.fn.countAll<number>().as('total'),
          sql<number>`coalesce(sum(case when role = 'admin' then 1 else 0 end), 0)`.as('admins'),
          sql<number>`coalesce(sum(disabled), 0)`.as('disabled'),
        ])
        .executeTakeFirstOrThrow();
      return { total: Number(row.total), admins: Number(row.admins), disabled: Number(row.disabled) };
    },
    /** Accounts created in [from, before) (ISO timestamps). */
    async createdBetween(db: DB, from: string, before: string): Promise<number> {
      const row = await db
        .selectFrom('users')
        .where('created_at', '>=', from)
        .where('created_at', '<', before)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async count(db: DB): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** A page of users with their project counts; search matches username or email substrings. */
    async list(db: DB, q: { page: number; pageSize: number; search?: string; role?: 'admin' | 'user' }) {
      let query = db.selectFrom('users');
      if (q.search) {
        const needle = `%${q.search
          .normalize('NFKC')
          .toLowerCase()
          .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        query = query.where((eb) =>
          eb.or([
            eb(sql`username_key`, 'like', sql`${needle} escape '\\'`),
            eb(sql`coalesce(email, '')`, 'like', sql`${needle} escape '\\'`),
          ]),
        );
      }
      if (q.role) query = query.where('role', '=', q.role);
      const total = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = await query
        .selectAll('users')
        .select((eb) =>
          eb
            .selectFrom('projects')
            .whereRef('projects.owner_id', '=', 'users.id')
            .select((e2) => e2.fn.countAll<number>().as('c'))
            .as('project_count'),
        )
        .orderBy('users.id')
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize)
        .execute();
      return { rows, total: Number(total.n) };
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;

/**
 * The field a unique-constraint failure on users is about, or null for any other error: a
 * concurrent registration that passed the "is it taken?" check still ends in a 409, not a 500.
 */
export function uniqueViolation(err: unknown): 'username' | 'email' | null {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; detail?: unknown };
  let column: string | undefined;
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE') column = /users\.(\w+)/.exec(String(e.message))?.[1];
  else if (e.code === '23505') column = /Key \((\w+)\)/.exec(String(e.detail))?.[1];
  if (column === 'username_key') return 'username';
  if (column === 'email') return 'email';
  return null;
}
