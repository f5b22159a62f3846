/**
 * The content check's risk level as a column (deployments.content_risk: 0 clean, 1 info, 2 low,
 * 3 medium, 4 high; null never checked), so the review list sorts and filters by it in SQL
 * (docs/decisions/review.md "Content check"). Existing reports are read and ranked by their risk findings
 * only (parseContentCheck upgrades version 1 reports), a page of rows at a time.
 */
import { type Kysely, sql } from 'kysely';

/*
 * The rank of a stored report, frozen as content-check/report.ts computed it when this migration
 * was written (parseContentCheck, then riskRankOf): a migration imports only db/ (docs/architecture.md
 * "Import rules, checked"), so a later change to the content check does not change what it did.
 */
const SEVERITIES = ['high', 'medium', 'low', 'info'] as const;
type Severity = (typeof SEVERITIES)[number];
const LEVEL_RANK: Record<Severity | 'clean', number> = { clean: 0, info: 1, low: 2, medium: 3, high: 4 };
const USABILITY_KINDS = new Set([
  'missing_entry',
  'root_absolute_link',
  'missing_file',
  'type_mismatch',
  'large_file',
  'blank_page',
  'console_error',
]);

/** A version 2 report's level; a version 1 report's from its risk findings; null when unreadable. */
function storedRiskRank(json: string): number | null {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object') return null;
  const report = raw as { version?: number; level?: Severity | 'clean'; findings?: unknown };
  if (report.version === 2) return report.level === undefined ? null : (LEVEL_RANK[report.level] ?? null);
  if (report.version !== 1 || !Array.isArray(report.findings)) return null;
  const counts: Record<Severity, number> = { high: 0, medium: 0, low: 0, info: 0 };
  for (const f of report.findings as Array<{ severity: Severity; kind: string; category?: string }>) {
    const category = f.category ?? (USABILITY_KINDS.has(f.kind) ? 'usability' : 'risk');
    if (category === 'risk') counts[f.severity]++;
  }
  return LEVEL_RANK[SEVERITIES.find((s) => counts[s] > 0) ?? 'clean'];
}

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
      const rank = storedRiskRank(row.content_check);
      if (rank !== null) {
        await sql`update deployments set content_risk = ${rank} where id = ${row.id}`.execute(db);
      }
    }
    after = Number(rows.at(-1)!.id);
  }
}
