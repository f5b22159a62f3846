/** The only place project rows become JSON (docs/product.md §3 field names, both naming styles). */
import type {
  AdminProjectDto,
  ContentCheckSummary,
  ContentFinding,
  DeploymentDto,
  ProjectDto,
  ProjectFileDto,
  PublicProjectDto,
  ReviewCommentDto,
  SiteRulesDto,
} from '@sitehall/contracts';
import type { DeploymentFileRow, DeploymentRow } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { type ReviewedProject, reviewedProjectOf } from '../domain/review-transitions.js';
import { type SiteUrlOptions, siteUrl, thumbnailUrl } from '../domain/site-urls.js';
import { reviewAbilities, rollbackAbility } from '../policies/review.js';
import type { ProjectWithOwner } from '../repositories/projects.js';

export function presentFile(f: DeploymentFileRow): ProjectFileDto {
  return {
    file_name: f.path,
    file_type: f.extension,
    file_size: Number(f.size),
    mime_type: f.mime_type,
    download_only: Number(f.download_only) === 1,
  };
}

/** A version of `project`, with what `viewer` may do with it now. */
export function presentDeployment(
  d: DeploymentRow & { reviewer?: string | null },
  project: ReviewedProject & { ownerId: number },
  viewer: Actor,
  /** When the project's takedowns were decided (review_comments): a version rejected then was taken down. */
  takedowns: ReadonlySet<string> = new Set(),
): DeploymentDto {
  return {
    id: d.id,
    version: d.version,
    status: d.status,
    upload_type: d.upload_type,
    upload_source: d.upload_source,
    file_count: d.file_count,
    file_size: Number(d.total_size),
    entry_file: d.entry_file,
    created_at: d.created_at,
    reviewed_at: d.reviewed_at,
    reviewed_by: d.reviewer ?? null,
    review_comment: d.review_comment,
    is_live: d.id === project.liveDeploymentId,
    // A takedown stores `rejected` on the versions it ends, at the moment of its review comment.
    taken_down: d.status === 'rejected' && d.reviewed_at !== null && takedowns.has(d.reviewed_at),
    abilities: { rollback: rollbackAbility(viewer, project, { id: d.id, status: d.status }) },
  };
}

export function presentProject(
  p: ProjectWithOwner,
  extra: {
    /** The deployment the file facts describe: the newest one. */
    latest?: DeploymentRow;
    live?: DeploymentRow;
    files?: DeploymentFileRow[];
    deployments?: (DeploymentRow & { reviewer: string | null })[];
    reviewComments?: ReviewCommentDto[];
    /** Detail only: the newest version's usability findings, for the uploader to fix. */
    usability?: ContentFinding[];
    urls: SiteUrlOptions;
    /** Who asks: the abilities are theirs. */
    viewer: Actor;
  },
): ProjectDto {
  const d = extra.latest;
  const isLive = p.live_deployment_id !== null;
  const reviewed = { ...reviewedProjectOf(p), ownerId: p.owner_id };
  const takedowns = takedownTimes(extra.reviewComments);
  return {
    id: p.id,
    project_id: p.id,
    project_name: p.name,
    name: p.name,
    description: p.description,
    status: p.status,
    is_live: isLive,
    is_public: p.is_public === 1,
    featured: p.featured === 1,
    file_size: Number(d?.total_size ?? 0),
    file_count: d?.file_count ?? 0,
    upload_type: d?.upload_type === 'files' ? 'files' : 'zip',
    upload_source: d?.upload_source ?? null,
    entry_file: d?.entry_file ?? null,
    created_at: p.created_at,
    createdAt: p.created_at,
    updated_at: p.updated_at,
    uploaded_at: d?.created_at ?? p.created_at,
    approved_at: p.approved_at,
    approved_by: p.approved_by_username,
    published_at: p.published_at,
    rejectionReason: p.status === 'rejected' ? (d?.review_comment ?? null) : null,
    // A takedown writes its reason on the version it took offline and on any newer upload.
    takedownReason: p.status === 'taken_down' ? (d?.review_comment ?? null) : null,
    abilities: reviewAbilities(extra.viewer, reviewed),
    viewCount: Number(p.view_count),
    access_count: Number(p.view_count),
    download_count: Number(p.download_count),
    access_url: isLive ? siteUrl({ id: p.id, name: p.site_name }, extra.urls) : null,
    site_name: p.site_name,
    owner: { id: p.owner_id, username: p.owner_username },
    ...(extra.files ? { files: extra.files.map(presentFile) } : {}),
    ...(extra.deployments
      ? {
          deployments: extra.deployments.map((x) => presentDeployment(x, reviewed, extra.viewer, takedowns)),
        }
      : {}),
    ...(extra.reviewComments ? { review_comments: extra.reviewComments } : {}),
    live_version: extra.live?.version ?? null,
    latest_version: d?.version ?? null,
    ...(extra.usability ? { usability_findings: extra.usability } : {}),
    // The owner and admins see the newest version as soon as it is rendered (docs/render.md).
    thumbnail_url: thumbnailUrl(d?.thumbnail_sha256) ?? thumbnailUrl(extra.live?.thumbnail_sha256),
    routing: {
      spa_fallback: Number(p.spa_fallback) === 1,
      clean_urls: Number(p.clean_urls) === 1,
      rules: presentSiteRules(d?.site_rules ?? null),
    },
  };
}

/**
 * What a project's detail is made of (services/projects.ts `detail`): its row, the newest and the
 * live version, the newest version's files and usability findings, every version and the review
 * history.
 */
export interface ProjectDetailRows {
  project: ProjectWithOwner;
  latest?: DeploymentRow;
  live?: DeploymentRow;
  /** Absent where the answer leaves them out (a digest deploy's finish: docs/decisions/deploys.md). */
  files?: DeploymentFileRow[];
  deployments: (DeploymentRow & { reviewer: string | null })[];
  reviewComments: ReviewCommentRow[];
  usability: ContentFinding[];
}

/** A row of a project's review history (repositories/review-comments.ts `ofProject`). */
export interface ReviewCommentRow {
  id: number;
  action: string;
  comment: string | null;
  created_at: string;
  reviewer?: string | null;
  deployment_version?: number | null;
}

/** When the takedowns of a project's review history were decided. */
function takedownTimes(comments: readonly ReviewCommentDto[] | undefined): ReadonlySet<string> {
  return new Set((comments ?? []).filter((c) => c.action === 'takedown').map((c) => c.created_at));
}

export function presentReviewComment(c: ReviewCommentRow): ReviewCommentDto {
  return {
    id: c.id,
    action: c.action,
    comment: c.comment,
    reviewer: c.reviewer ?? null,
    deployment_version: c.deployment_version ?? null,
    created_at: c.created_at,
  };
}

/** A project's detail page (owner or admin): every version, the files, the review history. */
export function presentProjectDetail(d: ProjectDetailRows, viewer: Actor, urls: SiteUrlOptions): ProjectDto {
  return presentProject(d.project, {
    latest: d.latest,
    live: d.live,
    ...(d.files ? { files: d.files } : {}),
    usability: d.usability,
    deployments: d.deployments,
    reviewComments: d.reviewComments.map(presentReviewComment),
    urls,
    viewer,
  });
}

/** A version's stored _redirects and _headers text (deployments.site_rules), for the owner and reviewer. */
export function presentSiteRules(stored: string | null): SiteRulesDto | null {
  if (!stored) return null;
  try {
    const text = JSON.parse(stored) as { redirects?: unknown; headers?: unknown };
    return {
      redirects: typeof text.redirects === 'string' ? text.redirects : null,
      headers: typeof text.headers === 'string' ? text.headers : null,
    };
  } catch {
    return null;
  }
}

/** A row of the admin lists: the project, its newest version's content check badge, its wait. */
export function presentAdminProject(
  p: ProjectWithOwner,
  extra: {
    latest?: DeploymentRow;
    live?: DeploymentRow;
    contentCheck: ContentCheckSummary | null;
    fileNames?: string[];
    urls: SiteUrlOptions;
    viewer: Actor;
  },
): AdminProjectDto {
  return {
    ...presentProject(p, { latest: extra.latest, live: extra.live, urls: extra.urls, viewer: extra.viewer }),
    content_check: extra.contentCheck,
    pending_since: p.status === 'pending' ? (extra.latest?.created_at ?? null) : null,
    ...(extra.fileNames ? { file_names: extra.fileNames } : {}),
  };
}

/** A showcase card: public fields only (no status history, owner id or private flags). */
export function presentPublicProject(
  r: {
    id: number;
    name: string;
    description: string | null;
    featured: number;
    approved_at: string | null;
    view_count: number;
    owner_username: string;
    site_name: string | null;
    file_count: number;
    total_size: number;
    thumbnail_sha256?: string | null;
    entry_file: string | null;
  },
  urls: SiteUrlOptions,
): PublicProjectDto {
  // A live version without an entry page opens the platform's 404 at its address, and its picture
  // is of that page: its card keeps neither, so the showcase never offers a dead end
  // (docs/decisions/review.md "A version without a home page").
  const opens = r.entry_file !== null;
  return {
    id: r.id,
    project_id: r.id,
    project_name: r.name,
    name: r.name,
    description: r.description,
    published_at: r.approved_at,
    file_count: r.file_count,
    file_size: Number(r.total_size),
    featured: r.featured === 1,
    viewCount: Number(r.view_count),
    access_url: opens ? siteUrl({ id: r.id, name: r.site_name }, urls) : null,
    site_name: r.site_name,
    owner: { username: r.owner_username },
    thumbnail_url: opens ? thumbnailUrl(r.thumbnail_sha256) : null,
  };
}
