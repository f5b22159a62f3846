/**
 * The render worker's durable queue (render_jobs, migration 010) and what a finished render writes
 * on its deployment (docs/render.md). A job is taken with one conditional update, the same SQL on
 * both engines: only the instance whose update matched runs it, under a lease that another instance
 * may take over once it has expired (the holder died mid-render). The queue is fair between
 * accounts (render_turns, migration 030): the job taken is the oldest due one of the account
 * served least recently. An account's turn goes with the account (repositories/users.ts
 * deleteIfUnowned), not with its projects.
 */
import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { RenderJobsTable } from '../db/types.js';

export type RenderJobRow = {
  [K in keyof RenderJobsTable]: RenderJobsTable[K] extends import('kysely').Generated<infer T>
    ? T
    : RenderJobsTable[K];
};

/**
 * Gives the account the turn after the highest: every account served before it now goes first.
 * Two instances taking at once may give two accounts the same turn; the older job then decides
 * between those two, once.
 */
async function nextTurn(trx: DB, ownerId: number): Promise<void> {
  await trx
    .insertInto('render_turns')
    .values((eb) => ({
      owner_id: ownerId,
      turn: eb.selectFrom('render_turns').select(sql<number>`coalesce(max(turn), 0) + 1`.as('turn')),
    }))
    .onConflict((oc) => oc.column('owner_id').doUpdateSet((eb) => ({ turn: eb.ref('excluded.turn') })))
    .execute();
}

export function createRenderJobsRepository() {
  /** Queued and due, or running under a lease that has run out. */
  const takeable = (at: string) =>
    sql<boolean>`((render_jobs.status = 'queued' and render_jobs.run_after <= ${at}) or (render_jobs.status = 'running' and render_jobs.lease_until <= ${at}))`;

  return {
    /** Queues a render of the deployment (again, when it had one: a re-render starts over). */
    async enqueue(trx: DB, deploymentId: number, projectId: number, at: string): Promise<void> {
      // What a job starts with, written alike by a first queueing and a re-render.
      const fresh = {
        status: 'queued',
        attempts: 0,
        error: null,
        holder: null,
        lease_until: null,
        run_after: at,
        duration_ms: null,
        updated_at: at,
      } as const;
      await trx
        .insertInto('render_jobs')
        .values({ deployment_id: deploymentId, project_id: projectId, created_at: at, ...fresh })
        .onConflict((oc) => oc.column('deployment_id').doUpdateSet(fresh))
        .execute();
    },

    /**
     * Takes a due job for this holder until leaseUntil; undefined when none is due. Accounts take
     * turns (docs/render.md "Jobs"): the job is the oldest due one of the account whose render was
     * taken least recently (never: first), and taking it gives that account the next turn, so one
     * that queued many renders holds another's by one render per worker, not by its queue.
     */
    async take(db: DB, holder: string, at: string, leaseUntil: string): Promise<RenderJobRow | undefined> {
      for (let tries = 0; tries < 5; tries++) {
        // The due jobs are sorted: found by render_jobs_status, each one's owner and turn read by
        // primary key (1-2 ms for 3,000 due, docs/render.md "Jobs"). A job whose project is gone
        // has no owner and goes first: it is settled at once.
        const next = await db
          .selectFrom('render_jobs')
          .leftJoin('projects', 'projects.id', 'render_jobs.project_id')
          .leftJoin('render_turns', 'render_turns.owner_id', 'projects.owner_id')
          .select(['render_jobs.id', 'projects.owner_id'])
          .where(takeable(at))
          .orderBy((eb) => eb.fn.coalesce('render_turns.turn', eb.lit(0)))
          .orderBy('render_jobs.id')
          .limit(1)
          .executeTakeFirst();
        if (!next) return undefined;
        const taken = await db.transaction().execute(async (trx) => {
          const row = await trx
            .updateTable('render_jobs')
            .set({
              status: 'running',
              holder,
              lease_until: leaseUntil,
              attempts: sql`attempts + 1`,
              updated_at: at,
            })
            .where('id', '=', next.id)
            .where(takeable(at))
            .returningAll()
            .executeTakeFirst();
          if (row && next.owner_id !== null) await nextTurn(trx, next.owner_id);
          return row;
        });
        // Another instance took it between the two statements: look again.
        if (taken) return taken as RenderJobRow;
      }
      return undefined;
    },

    /** Ends a job this holder still has: done, failed for good, or queued again for later. */
    async settle(
      trx: DB,
      id: number,
      holder: string,
      outcome:
        | { status: 'done'; durationMs: number }
        | { status: 'failed'; error: string; durationMs: number }
        | { status: 'queued'; error: string; runAfter: string; refund?: boolean },
      at: string,
    ): Promise<boolean> {
      const r = await trx
        .updateTable('render_jobs')
        .set({
          status: outcome.status,
          holder: null,
          lease_until: null,
          error: outcome.status === 'done' ? null : outcome.error,
          ...(outcome.status === 'queued'
            ? { run_after: outcome.runAfter }
            : { duration_ms: outcome.durationMs }),
          // A try that failed for a reason outside the page (a storage outage) is not counted.
          ...(outcome.status === 'queued' && outcome.refund ? { attempts: sql`attempts - 1` } : {}),
          updated_at: at,
        })
        .where('id', '=', id)
        .where('holder', '=', holder)
        .where('status', '=', 'running')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    /** Removes the jobs of a deleted project (in the delete's transaction). */
    async dropOfProject(trx: DB, projectId: number): Promise<void> {
      await trx.deleteFrom('render_jobs').where('project_id', '=', projectId).execute();
    },

    /**
     * Removes the jobs whose version no longer exists (a project or account deleted by any path):
     * the leftover sweep calls it; nothing references a job row.
     */
    async dropOfDeleted(db: DB): Promise<number> {
      const r = await db
        .deleteFrom('render_jobs')
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('deployments')
                .select('deployments.id')
                .whereRef('deployments.id', '=', 'render_jobs.deployment_id'),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    async byDeployment(db: DB, deploymentId: number): Promise<RenderJobRow | undefined> {
      return (await db
        .selectFrom('render_jobs')
        .selectAll()
        .where('deployment_id', '=', deploymentId)
        .executeTakeFirst()) as RenderJobRow | undefined;
    },

    /** Jobs waiting or running (the queue-length metric). */
    async pending(db: DB): Promise<number> {
      const r = await db
        .selectFrom('render_jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** A finished render's pictures and merged content check, on its deployment. */
    async saveResult(
      trx: DB,
      deploymentId: number,
      result: {
        thumbnail: string;
        thumbnailSmall: string;
        contentCheck: string | null;
        contentRisk: number | null;
        at: string;
      },
    ): Promise<void> {
      await trx
        .updateTable('deployments')
        .set({
          thumbnail_sha256: result.thumbnail,
          thumbnail_small_sha256: result.thumbnailSmall,
          rendered_at: result.at,
          ...(result.contentCheck !== null
            ? { content_check: result.contentCheck, content_risk: result.contentRisk }
            : {}),
        })
        .where('id', '=', deploymentId)
        .execute();
    },

    /**
     * Who may see a thumbnail: every deployment showing it with its project's owner, visibility
     * and live version (the same picture may belong to several versions or projects).
     */
    async thumbnailOwners(db: DB, sha256: string) {
      return db
        .selectFrom('deployments')
        .innerJoin('projects', 'projects.id', 'deployments.project_id')
        .select([
          'deployments.id as deployment_id',
          'projects.id as project_id',
          'projects.owner_id',
          'projects.is_public',
          'projects.live_deployment_id',
        ])
        .where((eb) =>
          eb.or([
            eb('deployments.thumbnail_sha256', '=', sha256),
            eb('deployments.thumbnail_small_sha256', '=', sha256),
          ]),
        )
        .limit(20)
        .execute();
    },
  };
}
export type RenderJobsRepository = ReturnType<typeof createRenderJobsRepository>;
