import type { ContentCheckLevel } from '@sitehall/contracts';

/**
 * The stored order of the content check's levels (deployments.content_risk, docs/content-check.md):
 * higher is worse, null never checked. The check ranks its report with it
 * (content-check/report.ts riskRankOf) and the review list filters and sorts by it
 * (repositories/projects.ts).
 */
export const LEVEL_RANK: Record<ContentCheckLevel, number> = {
  clean: 0,
  info: 1,
  low: 2,
  medium: 3,
  high: 4,
};
