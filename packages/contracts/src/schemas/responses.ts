/**
 * The response data of every endpoint as zod schemas: what the OpenAPI description
 * (GET /api/openapi.json) shows. The DTO interfaces of api.ts stay the names the code uses; the
 * checks at the end of this file fail the typecheck when a schema and its interface drift apart, so
 * a field added to a DTO must be added here too.
 */
import { z } from 'zod';
import type {
  AdminConfigData,
  AdminFileDiffData,
  AdminProjectDetailData,
  AdminProjectListData,
  AdminSourceData,
  AdminStatsDto,
  AdminUserDto,
  AuditLogListData,
  AuthData,
  ContentCheckReport,
  MyProjectsData,
  PasswordResetData,
  PreviewTokenDto,
  ProjectDto,
  PublicConfigDto,
  PublicProjectDto,
  RegisterData,
  ShowcasePagination,
  SiteNameDto,
  UserDto,
} from '../api.js';
import { CONTENT_CHECK_CANARY_KINDS } from '../api.js';
import { UPLOAD_SOURCES } from '../archive-formats.js';
import { publicSettingKeys, SETTING_KEYS, type SETTINGS, type SettingKey, settingOf } from '../settings.js';
import { DEPLOYMENT_STATUSES, PROJECT_STATUSES, ROLES, UPLOAD_TYPES } from '../statuses.js';
import type { ApiTokenListDto, CreatedApiTokenDto, StartedDeployDto } from './deploys.js';

const dateTime = z.string().describe('ISO 8601 时间');
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const paginationDto = z.object({
  current_page: z.number().int(),
  total_pages: z.number().int(),
  total_count: z.number().int(),
  page_size: z.number().int(),
});

export const userDto = z.object({
  id: z.number().int(),
  username: z.string(),
  email: nullable(z.string()),
  role: z.enum(ROLES),
  avatar: nullable(z.string()),
  disabled: z.boolean(),
  created_at: dateTime,
  updated_at: dateTime,
  last_login_at: nullable(dateTime),
  email_notifications: z.boolean().describe('是否接收邮件通知'),
  password_initial: z.boolean().describe('是否仍在使用系统生成的初始密码（应尽快修改）'),
});

export const adminUserDto = userDto.extend({
  project_count: z.number().int(),
  storage_used_bytes: z.number(),
  storage_quota_bytes: nullable(z.number()),
  storage_limit_bytes: z.number(),
  locked_until: nullable(dateTime).describe('登录被锁定到何时（连续密码错误后）；未锁定为 null'),
});

export const authData = z.object({ token: z.string(), expires_at: dateTime, user: userDto });
/** Registration and password reset: the new password, shown once. */
export const passwordData = z.object({ password: z.string(), user: userDto });
export const userData = z.object({ user: userDto });
export const adminUserListData = z.object({ users: z.array(adminUserDto), pagination: paginationDto });

export const projectFileDto = z.object({
  file_name: z.string(),
  file_type: z.string(),
  file_size: z.number(),
  mime_type: z.string(),
  download_only: z.boolean(),
});

export const deploymentDto = z.object({
  id: z.number().int(),
  version: z.number().int(),
  status: z.enum(DEPLOYMENT_STATUSES),
  upload_type: z.enum(UPLOAD_TYPES),
  upload_source: nullable(z.enum(UPLOAD_SOURCES)),
  file_count: z.number().int(),
  file_size: z.number(),
  entry_file: nullable(z.string()),
  created_at: dateTime,
  reviewed_at: nullable(dateTime),
  reviewed_by: nullable(z.string()),
  review_comment: nullable(z.string()),
  is_live: z.boolean(),
  taken_down: z.boolean(),
  abilities: z.object({ rollback: z.boolean() }),
});

export const reviewCommentDto = z.object({
  id: z.number().int(),
  action: z.string(),
  comment: nullable(z.string()),
  reviewer: nullable(z.string()),
  deployment_version: nullable(z.number().int()),
  created_at: dateTime,
});

const severity = z.enum(['high', 'medium', 'low', 'info']);
export const contentFindingDto = z.object({
  severity,
  category: z.enum(['risk', 'usability']),
  kind: z.enum([
    'missing_entry',
    'root_absolute_link',
    'missing_file',
    'external_script',
    'external_stylesheet',
    'external_frame',
    'password_form',
    'external_form',
    'redirect',
    'obfuscation',
    'crypto_miner',
    'type_mismatch',
    'svg_script',
    'large_file',
    'network_sink',
    'exfil_endpoint',
    'hidden_frame',
    'executable_download',
    'scam_text',
    'check_incomplete',
    'runtime_request',
    'runtime_navigation',
    'runtime_download',
    'runtime_prompt',
    'runtime_memory',
    'blank_page',
    'console_error',
    'history_routing',
    'relative_assets',
    'runtime_canary',
    'render_failed',
  ]),
  rule: z.string().optional(),
  message: z.string(),
  file: nullable(z.string()),
  line: nullable(z.number().int()),
  excerpt: nullable(z.string()).optional(),
});

export const siteRulesDto = z.object({ redirects: nullable(z.string()), headers: nullable(z.string()) });

export const projectDto = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  project_name: z.string(),
  name: z.string(),
  description: nullable(z.string()),
  status: z.enum(PROJECT_STATUSES),
  is_live: z.boolean(),
  is_public: z.boolean(),
  featured: z.boolean(),
  file_size: z.number(),
  file_count: z.number().int(),
  upload_type: z.enum(UPLOAD_TYPES),
  upload_source: nullable(z.enum(UPLOAD_SOURCES)),
  entry_file: nullable(z.string()),
  created_at: dateTime,
  createdAt: dateTime,
  updated_at: dateTime,
  uploaded_at: dateTime,
  approved_at: nullable(dateTime),
  approved_by: nullable(z.string()),
  published_at: nullable(dateTime),
  rejectionReason: nullable(z.string()),
  takedownReason: nullable(z.string()),
  abilities: z.object({
    approve: z.boolean(),
    reject: z.boolean(),
    publish: z.boolean(),
    unpublish: z.boolean(),
    takedown: z.boolean(),
  }),
  viewCount: z.number().int(),
  access_count: z.number().int(),
  download_count: z.number().int(),
  access_url: nullable(z.string()),
  site_name: nullable(z.string()),
  owner: z.object({ id: z.number().int(), username: z.string() }),
  files: z.array(projectFileDto).optional(),
  deployments: z.array(deploymentDto).optional(),
  review_comments: z.array(reviewCommentDto).optional(),
  live_version: nullable(z.number().int()),
  latest_version: nullable(z.number().int()),
  usability_findings: z.array(contentFindingDto).optional(),
  thumbnail_url: nullable(z.string()),
  routing: z.object({
    spa_fallback: z.boolean(),
    clean_urls: z.boolean(),
    rules: nullable(siteRulesDto),
  }),
});
export const projectData = z.object({ project: projectDto });

export const myProjectsData = z.object({
  projects: z.array(projectDto),
  pagination: paginationDto,
  stats: z.object({
    total: z.number().int(),
    pending: z.number().int(),
    reviewed: z.number().int(),
    published: z.number().int(),
    taken_down: z.number().int(),
  }),
  storage: z.object({ used_bytes: z.number(), quota_bytes: z.number() }),
});

export const publicProjectDto = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  project_name: z.string(),
  name: z.string(),
  description: nullable(z.string()),
  published_at: nullable(dateTime),
  file_count: z.number().int(),
  file_size: z.number(),
  featured: z.boolean(),
  viewCount: z.number().int(),
  access_url: nullable(z.string()),
  site_name: nullable(z.string()),
  owner: z.object({ username: z.string() }),
  thumbnail_url: nullable(z.string()),
});
export const showcasePagination = paginationDto.extend({ total_capped: z.boolean() });
export const showcaseData = z.object({ projects: z.array(publicProjectDto), pagination: showcasePagination });

export const previewTokenDto = z.object({
  token: z.string(),
  preview_url: z.string(),
  expires_in_seconds: z.number().int(),
  expires_at: dateTime,
});

/** A setting's value in an answer (the request's schema, with its bounds, is in schemas/admin.ts). */
type SettingValueSchema<D> = D extends { type: 'integer' }
  ? z.ZodNumber
  : D extends { type: 'boolean' }
    ? z.ZodBoolean
    : D extends { type: 'enum'; options: readonly (infer T extends string)[] }
      ? z.ZodType<T>
      : z.ZodArray<z.ZodString>;

function settingValueSchema(key: SettingKey): z.ZodType {
  const d = settingOf(key);
  if (d.type === 'integer') return z.number().int();
  if (d.type === 'boolean') return z.boolean();
  if (d.type === 'enum') return z.enum(d.options as [string, ...string[]]);
  return z.array(z.string());
}

/** The schemas of these settings' values, keyed as the API names them. */
function settingsShape<K extends SettingKey>(keys: readonly K[]) {
  return Object.fromEntries(keys.map((key) => [key, settingValueSchema(key)])) as {
    [P in K]: SettingValueSchema<(typeof SETTINGS)[P]>;
  };
}

export const publicConfigDto = z.object({
  limits: z.object(settingsShape(publicSettingKeys('limits'))),
  ...settingsShape(publicSettingKeys('top')),
  sites_origin: nullable(z.string()),
  sites_port: nullable(z.number().int()),
  sites_subdomains: z.boolean(),
  /** Notices are also sent by e-mail on this server (SMTP_URL is set): docs/notifications.md. */
  mail_enabled: z.boolean(),
});

export const siteNameData = z.object({
  name: nullable(z.string()),
  available: z.boolean(),
  message: nullable(z.string()),
});

const severityCounts = z.object({
  high: z.number().int(),
  medium: z.number().int(),
  low: z.number().int(),
  info: z.number().int(),
});
export const contentCheckSummary = z.object({
  level: z.enum(['high', 'medium', 'low', 'info', 'clean']),
  counts: severityCounts,
  reason: z.string(),
  usability_problems: z.number().int(),
});
export const contentCheckReport = contentCheckSummary.extend({
  version: z.literal(2),
  checked_at: dateTime,
  findings: z.array(contentFindingDto),
  usability_count: z.number().int(),
  omitted_findings: z.number().int(),
  external_domains: z.object({
    scripts: z.array(z.string()),
    stylesheets: z.array(z.string()),
    frames: z.array(z.string()),
    forms: z.array(z.string()),
    redirects: z.array(z.string()),
    script_hosts: z.array(z.string()),
  }),
  largest_files: z.array(z.object({ file: z.string(), size: z.number() })),
  scanned_files: z.number().int(),
  partially_scanned_files: z.array(z.string()),
  entry_relative_asset: nullable(z.string()).optional(),
  missing_paths: z.array(z.string()).optional(),
  runtime: z
    .object({
      rendered_at: dateTime,
      external_requests: z.array(
        z.object({ method: z.string(), url: z.string(), resource_type: z.string(), allowed: z.boolean() }),
      ),
      navigations: z.array(z.string()),
      downloads: z.array(z.string()),
      dialogs: z.array(z.string()),
      permissions: z.array(z.string()),
      console_errors: z.array(z.string()),
      missing: z.array(z.string()),
      blank: z.boolean(),
      canary_leaks: z
        .array(
          z.object({
            kind: z.enum(CONTENT_CHECK_CANARY_KINDS),
            field: z.string(),
            host: z.string(),
            url: z.string(),
            via: z.string(),
            encoding: z.string(),
            external: z.boolean(),
          }),
        )
        .optional(),
      load_timed_out: z.boolean().optional(),
      failed: nullable(z.string()).optional(),
      profiles: z.array(z.string()).optional(),
      risk_counts: severityCounts,
    })
    .optional(),
});

export const adminProjectDto = projectDto.extend({
  content_check: nullable(contentCheckSummary),
  pending_since: nullable(dateTime),
  file_names: z.array(z.string()).optional(),
});
export const adminProjectListData = z.object({
  projects: z.array(adminProjectDto),
  pagination: paginationDto,
  counts: z.object({
    all: z.number().int(),
    pending: z.number().int(),
    approved: z.number().int(),
    published: z.number().int(),
    rejected: z.number().int(),
    taken_down: z.number().int(),
  }),
});
export const pendingProjectsData = z.object({
  projects: z.array(adminProjectDto),
  pagination: paginationDto,
});

const diffFile = z.object({ file: z.string(), size: z.number() });
export const renderStateDto = z.object({
  version: z.number().int(),
  newest: z.boolean(),
  live: z.boolean(),
  state: z.enum(['queued', 'running', 'done', 'failed', 'none']),
  attempts: z.number().int(),
  error: nullable(z.string()),
  updated_at: nullable(dateTime),
});

export const adminProjectDetailData = z.object({
  project: projectDto,
  content_check: nullable(contentCheckReport),
  content_check_version: nullable(z.number().int()),
  diff: nullable(
    z.object({
      from_version: z.number().int(),
      to_version: z.number().int(),
      added: z.array(diffFile),
      removed: z.array(diffFile),
      changed: z.array(
        z.object({ file: z.string(), old_size: z.number(), new_size: z.number(), text: z.boolean() }),
      ),
      unchanged_count: z.number().int(),
      site_rules: z.object({ live: nullable(siteRulesDto), newest: nullable(siteRulesDto) }),
    }),
  ),
  stats: z.object({
    view_count: z.number().int(),
    download_count: z.number().int(),
    views_by_day: z.array(z.object({ day: z.string(), views: z.number().int() })),
    views_last_7_days: z.number().int(),
  }),
  renders: z.array(renderStateDto),
});

export const adminFileDiffData = z.object({
  path: z.string(),
  from_version: z.number().int(),
  to_version: z.number().int(),
  old_size: nullable(z.number().int()),
  new_size: nullable(z.number().int()),
  too_large: z.boolean(),
  old_text: nullable(z.string()),
  new_text: nullable(z.string()),
});

export const adminSourceData = z.object({
  path: z.string(),
  version: z.number().int(),
  first_line: z.number().int(),
  lines: z.array(z.string()),
  truncated: z.boolean(),
});

export const batchResultData = z.object({
  results: z.array(z.object({ id: z.number().int(), success: z.boolean(), message: z.string() })),
  succeeded: z.number().int(),
  failed: z.number().int(),
});

const weekTrend = z.object({
  this_week: z.number(),
  last_week: z.number(),
  trend_percent: nullable(z.number()),
});
const siteIsolation = z.object({
  mode: z.enum(['sandboxed', 'sites_port', 'sites_origin', 'subdomains']),
  sites_port: nullable(z.number().int()),
});

export const adminStatsDto = z.object({
  projects: z.object({
    total: z.number().int(),
    pending: z.number().int(),
    approved: z.number().int(),
    published: z.number().int(),
    rejected: z.number().int(),
    taken_down: z.number().int(),
    live: z.number().int(),
  }),
  users: z.object({ total: z.number().int(), admins: z.number().int(), disabled: z.number().int() }),
  views: z.object({ total: z.number().int() }),
  downloads: z.object({ total: z.number().int() }),
  weekly: z.object({
    projects: weekTrend,
    uploads: weekTrend,
    approvals: weekTrend,
    rejections: weekTrend,
    views: weekTrend,
    users: weekTrend,
  }),
  site_isolation: siteIsolation,
  generated_at: dateTime,
});

export const auditLogListData = z.object({
  logs: z.array(
    z.object({
      id: z.number().int(),
      actor: nullable(z.object({ id: nullable(z.number().int()), username: z.string() })),
      action: z.string(),
      action_label: z.string(),
      target_type: nullable(z.string()),
      target_id: nullable(z.string()),
      target_name: nullable(z.string()),
      target_gone: z.boolean(),
      detail: nullable(z.record(z.string(), z.unknown())),
      ip: nullable(z.string()),
      created_at: dateTime,
    }),
  ),
  pagination: paginationDto,
});

const adminConfigDto = z.object(settingsShape(SETTING_KEYS));
export const adminConfigData = z.object({
  config: adminConfigDto,
  defaults: adminConfigDto,
  known_extensions: z.array(z.string()),
  sites_origin: nullable(z.string()),
  site_isolation: siteIsolation,
});

/** `data` of the answers that carry none (logout, delete). */
export const noData = z.null();

export const rerenderData = z.object({ queued: z.number().int().describe('排入渲染队列的版本数') });

export const apiTokenDto = z.object({
  id: z.number().int(),
  name: z.string(),
  prefix: nullable(z.string()).describe('令牌开头（sht_ 加 8 个字符），用于区分令牌'),
  created_at: dateTime,
  last_used_at: nullable(dateTime),
});
export const apiTokenListData = z.object({ tokens: z.array(apiTokenDto) });
export const createdApiTokenData = z.object({
  id: z.number().int(),
  name: z.string(),
  token: z.string().describe('只在这一次回答中出现'),
});
export const startedDeployData = z.object({
  deploy_id: z.string().nullable().describe('文件与项目最新版本完全相同时为 null（不创建部署）'),
  required: z.array(z.string()).describe('服务器尚未持有的内容（SHA-256），分批 POST 或逐个 PUT 上传'),
  unchanged_version: z
    .number()
    .int()
    .optional()
    .describe('文件与项目最新版本完全相同时：该版本的版本号，不会创建新版本'),
  batch: z
    .object({ max_files: z.number().int().describe('一批最多的文件数') })
    .optional()
    .describe('服务器可一次接收多个文件（POST /api/deploys/{id}/files）时给出'),
});

/* ---- Each schema describes exactly its DTO (a type error here names the one that drifted). ---- */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;
export type ResponseSchemaChecks = [
  Check<Same<z.output<typeof userDto>, UserDto>>,
  Check<Same<z.output<typeof adminUserDto>, AdminUserDto>>,
  Check<Same<z.output<typeof authData>, AuthData>>,
  Check<Same<z.output<typeof passwordData>, RegisterData>>,
  Check<Same<z.output<typeof passwordData>, PasswordResetData>>,
  Check<Same<z.output<typeof projectDto>, ProjectDto>>,
  Check<Same<z.output<typeof myProjectsData>, MyProjectsData>>,
  Check<Same<z.output<typeof publicProjectDto>, PublicProjectDto>>,
  Check<Same<z.output<typeof showcasePagination>, ShowcasePagination>>,
  Check<Same<z.output<typeof previewTokenDto>, PreviewTokenDto>>,
  Check<Same<z.output<typeof publicConfigDto>, PublicConfigDto>>,
  Check<Same<z.output<typeof contentCheckReport>, ContentCheckReport>>,
  Check<Same<z.output<typeof adminProjectListData>, AdminProjectListData>>,
  Check<Same<z.output<typeof adminProjectDetailData>, AdminProjectDetailData>>,
  Check<Same<z.output<typeof adminSourceData>, AdminSourceData>>,
  Check<Same<z.output<typeof adminFileDiffData>, AdminFileDiffData>>,
  Check<Same<z.output<typeof adminStatsDto>, AdminStatsDto>>,
  Check<Same<z.output<typeof auditLogListData>, AuditLogListData>>,
  Check<Same<z.output<typeof adminConfigData>, AdminConfigData>>,
  Check<Same<z.output<typeof apiTokenListData>, ApiTokenListDto>>,
  Check<Same<z.output<typeof createdApiTokenData>, CreatedApiTokenDto>>,
  Check<Same<z.output<typeof startedDeployData>, StartedDeployDto>>,
  Check<Same<z.output<typeof siteNameData>, SiteNameDto>>,
];
