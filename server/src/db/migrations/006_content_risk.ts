/**
 * The content check's risk level as a column (deployments.content_risk: 0 clean, 1 info, 2 low,
 * 3 medium, 4 high; null never checked), so the review list sorts and filters by it in SQL
 * (docs/decisions.md "Content check"). Existing reports are read and ranked by their risk findings
 * only (parseContentCheck upgrades version 1 reports), a page of rows at a time.
 */
import { type Kysely, sql } from 'kysely';
import { parseContentCheck, riskRankOf } from '../../content-check/report.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deployments add column content_risk integer`.execute(db);
  await sql`create index deployments_content_risk on deployments (content_risk)`.execute(db);
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; content_check: string }>`
      select id, content_check from deployments
      where content_check is not null and id > ${after}
      order by id limit 500`.execute(db);
    if (rows.length === 0) break;
    for (const row of rows) {
      const report = parseContentCheck(row.content_check);
      if (report) {
        await sql`update deployments set content_risk = ${riskRankOf(report)} where id = ${row.id}`.execute(
          db,
        );
      }
    }
    after = Number(rows.at(-1)!.id);
  }
}
