/**
 * The review detail's parts as JSON (GET /api/admin/projects/{id}): the version diff, the view
 * figures and the renders. services/review.ts (`createReviewQueue`) reads the rows; the admin route
 * presents them here.
 */
import type {
  AdminProjectDetailData,
  ContentCheckReport,
  ProjectStatsDto,
  RenderStateDto,
  VersionDiffDto,
} from '@sitehall/contracts';
import type { DeploymentFileRow, DeploymentRow } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import type { SiteUrlOptions } from '../domain/site-urls.js';
import { TEXT_DIFF_TYPES } from '../domain/text-diff.js';
import type { RenderJobRow } from '../repositories/render-jobs.js';
import { type ProjectDetailRows, presentProjectDetail, presentSiteRules } from './project.js';

/** The live and the newest version of a project, with their files, when they differ. */
export interface VersionDiffRows {
  live: DeploymentRow;
  newest: DeploymentRow;
  liveFiles: DeploymentFileRow[];
  newestFiles: DeploymentFileRow[];
}

/** Files of the newest version against the live one: added, removed, changed (by content), the rest counted. */
export function presentVersionDiff(rows: VersionDiffRows): VersionDiffDto {
  const { live, newest } = rows;
  const before = new Map(rows.liveFiles.map((f) => [f.path, f]));
  const diff: VersionDiffDto = {
    from_version: live.version,
    to_version: newest.version,
    added: [],
    removed: [],
    changed: [],
    unchanged_count: 0,
    site_rules: { live: presentSiteRules(live.site_rules), newest: presentSiteRules(newest.site_rules) },
  };
  for (const f of rows.newestFiles) {
    const old = before.get(f.path);
    before.delete(f.path);
    if (!old) diff.added.push({ file: f.path, size: Number(f.size) });
    else if (old.sha256 !== f.sha256) {
      diff.changed.push({
        file: f.path,
        old_size: Number(old.size),
        new_size: Number(f.size),
        text: TEXT_DIFF_TYPES.has(f.extension),
      });
    } else diff.unchanged_count++;
  }
  for (const f of before.values()) diff.removed.push({ file: f.path, size: Number(f.size) });
  return diff;
}

/** A project's counters and its views of each day of the window (oldest first, days without views as 0). */
export interface ProjectStatsRows {
  project: { view_count: number; download_count: number };
  viewsByDay: Array<{ day: string; views: number }>;
}

export function presentProjectStats(rows: ProjectStatsRows): ProjectStatsDto {
  return {
    view_count: Number(rows.project.view_count),
    download_count: Number(rows.project.download_count),
    views_by_day: rows.viewsByDay,
    views_last_7_days: rows.viewsByDay.slice(-7).reduce((sum, d) => sum + d.views, 0),
  };
}

/** A version (the newest, the live one or both) and its render job, if it has one. */
export interface RenderStateRows {
  version: DeploymentRow;
  job: RenderJobRow | undefined;
  newest: boolean;
  live: boolean;
}

export function presentRenderState({ version, job, newest, live }: RenderStateRows): RenderStateDto {
  return {
    version: version.version,
    newest,
    live,
    state: job?.status ?? 'none',
    attempts: job?.attempts ?? 0,
    // The last failed attempt's reason; a finished render has none.
    error: job && job.status !== 'done' ? job.error : null,
    updated_at: job?.updated_at ?? null,
  };
}

/** What the review detail is made of (services/review.ts `createReviewQueue().detail`). */
export interface ReviewDetailRows {
  project: ProjectDetailRows;
  contentCheck: ContentCheckReport | null;
  contentCheckVersion: number | null;
  diff: VersionDiffRows | null;
  stats: ProjectStatsRows;
  renders: RenderStateRows[];
}

export function presentReviewDetail(
  d: ReviewDetailRows,
  viewer: Actor,
  urls: SiteUrlOptions,
): AdminProjectDetailData {
  return {
    project: presentProjectDetail(d.project, viewer, urls),
    content_check: d.contentCheck,
    content_check_version: d.contentCheckVersion,
    diff: d.diff ? presentVersionDiff(d.diff) : null,
    stats: presentProjectStats(d.stats),
    renders: d.renders.map(presentRenderState),
  };
}
