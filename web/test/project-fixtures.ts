/** Projects and server answers for the owner's screens. */
import type {
  DeploymentDto,
  MyProjectStats,
  ProjectAbilities,
  ProjectDto,
  PublicConfigDto,
  StorageUsageDto,
} from '@sitehall/contracts';
import { ok } from './fake-api';

/**
 * What an admin may do with a project in this state, as the server's transition table answers
 * (server/test/transitions.test.ts holds the server to it): the fixtures' default abilities.
 */
export function adminAbilities(
  p: Pick<ProjectDto, 'status' | 'is_live'> & Partial<Pick<ProjectDto, 'featured'>>,
): ProjectAbilities {
  return {
    approve: p.status === 'pending',
    reject: p.status === 'pending',
    publish: p.status === 'approved' && p.is_live,
    // The mark comes off a live featured site whatever its newest upload's status.
    unpublish: (p.featured ?? p.status === 'published') && p.is_live,
    takedown: p.is_live,
  };
}

/** An owner's view: review is the admins'. */
export const NO_REVIEW: ProjectAbilities = {
  approve: false,
  reject: false,
  publish: false,
  unpublish: false,
  takedown: false,
};

export function makeProject(overrides: Partial<ProjectDto> = {}): ProjectDto {
  const id = overrides.id ?? 7;
  const name = overrides.name ?? overrides.project_name ?? '个人作品集';
  return {
    id,
    project_id: id,
    project_name: name,
    name,
    description: '展示我的前端作品',
    thumbnail_url: null,
    site_name: null,
    routing: { spa_fallback: false, clean_urls: false, rules: null },
    status: 'pending',
    is_live: false,
    is_public: true,
    featured: false,
    file_size: 2048,
    file_count: 2,
    upload_type: 'files',
    upload_source: 'files',
    entry_file: 'index.html',
    created_at: '2024-05-01T08:00:00.000Z',
    createdAt: '2024-05-01T08:00:00.000Z',
    uploaded_at: '2024-05-01T08:00:00.000Z',
    updated_at: '2024-05-01T08:00:00.000Z',
    approved_at: null,
    approved_by: null,
    published_at: null,
    rejectionReason: null,
    viewCount: 0,
    access_count: 0,
    download_count: 0,
    access_url: null,
    owner: { id: 2, username: 'alice' },
    live_version: null,
    latest_version: 1,
    takedownReason: null,
    abilities: NO_REVIEW,
    ...overrides,
  };
}

export const publicConfig: PublicConfigDto = {
  limits: {
    max_files_per_upload: 20,
    max_file_bytes: 100 * 1024 * 1024,
    max_upload_bytes: 200 * 1024 * 1024,
    max_archive_entries: 10_000,
    max_archive_uncompressed_bytes: 500 * 1024 * 1024,
  },
  allowed_extensions: [
    'zip',
    'rar',
    '7z',
    'html',
    'css',
    'js',
    'json',
    'txt',
    'md',
    'png',
    'jpg',
    'jpeg',
    'gif',
    'svg',
  ],
  unknown_file_types: 'download',
  preview_ttl_seconds: 1800,
  sites_origin: null,
  sites_port: null,
  sites_subdomains: false,
  mail_enabled: false,
};

export function myProjects(
  projects: ProjectDto[],
  stats: MyProjectStats = { total: projects.length, pending: 0, reviewed: 0, published: 0, taken_down: 0 },
  page = 1,
  pageSize = 12,
  storage: StorageUsageDto = { used_bytes: 0, quota_bytes: 1024 ** 3 },
) {
  return ok({
    projects,
    pagination: {
      current_page: page,
      total_pages: Math.max(1, Math.ceil(stats.total / pageSize)),
      total_count: stats.total,
      page_size: pageSize,
    },
    stats,
    storage,
  });
}

/** One version of a project. */
export function makeDeployment(overrides: Partial<DeploymentDto>): DeploymentDto {
  return {
    id: 1,
    version: 1,
    status: 'approved',
    upload_type: 'files',
    upload_source: 'files',
    file_count: 2,
    file_size: 2048,
    entry_file: 'index.html',
    created_at: '2024-05-01T08:00:00.000Z',
    reviewed_at: null,
    reviewed_by: null,
    review_comment: null,
    is_live: false,
    taken_down: false,
    ...overrides,
    // Rollback: an approved version that is not the live one (the fixtures' projects are live).
    abilities: overrides.abilities ?? {
      rollback: (overrides.status ?? 'approved') === 'approved' && !overrides.is_live,
    },
  };
}
