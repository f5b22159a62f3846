/** The custom_domains table (migration 021): domains attached to projects, and the served map. */
import type { DB } from '../db/database.js';
import type { CustomDomainRow } from '../db/types.js';

/** A domain with what the admin list shows of its project and owner. */
export interface CustomDomainListed extends CustomDomainRow {
  project_name: string;
  owner_id: number;
  owner_username: string;
}

export function createCustomDomainsRepository() {
  return {
    insert(db: DB, row: Omit<CustomDomainRow, 'id'>): Promise<CustomDomainRow> {
      return db.insertInto('custom_domains').values(row).returningAll().executeTakeFirstOrThrow();
    },
    byId(db: DB, id: number): Promise<CustomDomainRow | undefined> {
      return db.selectFrom('custom_domains').selectAll().where('id', '=', id).executeTakeFirst();
    },
    ofProject(db: DB, projectId: number): Promise<CustomDomainRow[]> {
      return db
        .selectFrom('custom_domains')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('id')
        .execute();
    },
    async countOf(db: DB, projectId: number): Promise<number> {
      const r = await db
        .selectFrom('custom_domains')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** The verified row of a domain, on whichever project holds it. */
    verifiedOf(db: DB, domain: string): Promise<CustomDomainRow | undefined> {
      return db
        .selectFrom('custom_domains')
        .selectAll()
        .where('domain', '=', domain)
        .where('verified_at', 'is not', null)
        .executeTakeFirst();
    },
    /** Marks a domain verified; false when it already was (or is gone). */
    async markVerified(db: DB, id: number, at: string): Promise<boolean> {
      const r = await db
        .updateTable('custom_domains')
        .set({ verified_at: at })
        .where('id', '=', id)
        .where('verified_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async approve(db: DB, id: number, by: number, at: string): Promise<boolean> {
      const r = await db
        .updateTable('custom_domains')
        .set({ approved_at: at, approved_by: by })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async remove(db: DB, id: number): Promise<boolean> {
      const r = await db.deleteFrom('custom_domains').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /** Every domain, newest first, with its project and owner (the admin's list). */
    listAll(db: DB): Promise<CustomDomainListed[]> {
      return db
        .selectFrom('custom_domains')
        .innerJoin('projects', 'projects.id', 'custom_domains.project_id')
        .innerJoin('users', 'users.id', 'projects.owner_id')
        .selectAll('custom_domains')
        .select([
          'projects.name as project_name',
          'projects.owner_id as owner_id',
          'users.username as owner_username',
        ])
        .orderBy('custom_domains.id', 'desc')
        .execute();
    },
    /** Verified domains (approved too when `approvedOnly`) → their project: what is served. */
    async served(db: DB, approvedOnly: boolean): Promise<Array<{ domain: string; project_id: number }>> {
      let q = db
        .selectFrom('custom_domains')
        .select(['domain', 'project_id'])
        .where('verified_at', 'is not', null);
      if (approvedOnly) q = q.where('approved_at', 'is not', null);
      return q.execute();
    },
  };
}
export type CustomDomainsRepository = ReturnType<typeof createCustomDomainsRepository>;

/** True for the unique-index failure of a second verified row of one domain (either engine). */
export function isDuplicateDomain(err: unknown): boolean {
  const e = (err ?? {}) as { code?: unknown };
  return e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === '23505';
}
