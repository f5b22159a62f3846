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
} from '@sitehall/contracts';
import type { DeploymentFileRow, DeploymentRow } from '../db/types.js';
import type { ProjectWithOwner } from '../repositories/projects.js';
import { type SiteUrlOptions, siteUrl, thumbnailUrl } from './urls.js';

export function presentFile(f: DeploymentFileRow): ProjectFileDto {
  return {
    file_name: f.path,
    file_type: f.extension,
    file_size: Number(f.size),
    mime_type: f.mime_type,
    download_only: Number(f.download_only) === 1,
  };
}

export function presentDeployment(
  d: DeploymentRow & { reviewer?: string | null },
  liveId: number | null,
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
    is_live: d.id === liveId,
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
  },
): ProjectDto {
  const d = extra.latest;
  const isLive = p.live_deployment_id !== null;
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
    viewCount: Number(p.view_count),
    access_count: Number(p.view_count),
    download_count: Number(p.download_count),
    access_url: isLive ? siteUrl(p.id, extra.urls) : null,
    owner: { id: p.owner_id, username: p.owner_username },
    ...(extra.files ? { files: extra.files.map(presentFile) } : {}),
    ...(extra.deployments
      ? { deployments: extra.deployments.map((x) => presentDeployment(x, p.live_deployment_id)) }
      : {}),
    ...(extra.reviewComments ? { review_comments: extra.reviewComments } : {}),
    live_version: extra.live?.version ?? null,
    latest_version: d?.version ?? null,
    ...(extra.usability ? { usability_findings: extra.usability } : {}),
    // The owner and admins see the newest version as soon as it is rendered (docs/render.md).
    thumbnail_url: thumbnailUrl(d?.thumbnail_sha256) ?? thumbnailUrl(extra.live?.thumbnail_sha256),
  };
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
  },
): AdminProjectDto {
  return {
    ...presentProject(p, { latest: extra.latest, live: extra.live, urls: extra.urls }),
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
    file_count: number;
    total_size: number;
    thumbnail_sha256?: string | null;
  },
  urls: SiteUrlOptions,
): PublicProjectDto {
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
    access_url: siteUrl(r.id, urls),
    owner: { username: r.owner_username },
    thumbnail_url: thumbnailUrl(r.thumbnail_sha256),
  };
}
