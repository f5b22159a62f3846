/** Response shapes of the API (docs/product.md "API shape"). */
import type { UploadSource } from './archive-formats.js';
import type { PublicSettingsValues, SettingsValues } from './settings.js';
import type { DeploymentStatus, ProjectStatus, ReviewAction, Role, UploadType } from './statuses.js';

export interface ApiSuccess<T> {
  success: true;
  data: T;
  message?: string;
}
export interface ApiFailure {
  success: false;
  message: string;
  errors?: Record<string, string>;
}
export type ApiResponse<T> = ApiSuccess<T> | ApiFailure;

export interface Pagination {
  current_page: number;
  total_pages: number;
  total_count: number;
  page_size: number;
}

export interface UserDto {
  id: number;
  username: string;
  email: string | null;
  role: Role;
  avatar: string | null;
  disabled: boolean;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
  /** Whether notices also come by e-mail (when the server sends e-mail and the account has an address). */
  email_notifications: boolean;
  /** The account still signs in with a password generated for it (新建用户, 重置密码, the first start): it is asked to choose its own. */
  password_initial: boolean;
}

/** Admin view of a user, with the number of projects they own and the space they use. */
export interface AdminUserDto extends UserDto {
  project_count: number;
  /** Stored size of every version of their projects (docs/decisions/uploads.md "Storage quota and upload rate"). */
  storage_used_bytes: number;
  /** Their own quota set by an admin; null = the platform's setting. */
  storage_quota_bytes: number | null;
  /** The quota that applies: their own, else the platform's. */
  storage_limit_bytes: number;
  /** Until when sign-ins from some address are refused after wrong passwords; null when not locked. */
  locked_until: string | null;
}

export interface AuthData {
  token: string;
  expires_at: string;
  user: UserDto;
}

export interface RegisterData {
  password: string;
  user: UserDto;
}

export interface PasswordResetData {
  password: string;
  user: UserDto;
}

export interface ProjectFileDto {
  file_name: string;
  file_type: string;
  file_size: number;
  mime_type: string;
  /** A file of a type that is not web content: stored and served as a download only. */
  download_only: boolean;
}

export interface DeploymentDto {
  id: number;
  version: number;
  status: DeploymentStatus;
  upload_type: UploadType;
  /** How this version's files arrived (an archive by its real format, a digest deploy); null before it was recorded. */
  upload_source: UploadSource | null;
  file_count: number;
  file_size: number;
  entry_file: string | null;
  created_at: string;
  reviewed_at: string | null;
  reviewed_by: string | null;
  review_comment: string | null;
  is_live: boolean;
  /**
   * Stored `rejected` by a takedown (docs/decisions/honest-states.md), not by a review: the version
   * history says 已下线 for it.
   */
  taken_down: boolean;
  /** What the current user may do with this version now (rollback: make it live again). */
  abilities: DeploymentAbilities;
}

/**
 * What the current user may do with a project now, as Outline sends policies with each object: the
 * server's transition guards (server/src/domain/review-transitions.ts) and permissions applied, so
 * the web shows exactly the buttons the server would accept and never re-derives them.
 */
export type ProjectAbilities = Record<ReviewAction, boolean>;

export interface DeploymentAbilities {
  rollback: boolean;
}

export interface ReviewCommentDto {
  id: number;
  action: string;
  comment: string | null;
  reviewer: string | null;
  deployment_version: number | null;
  created_at: string;
}

/** A project as the owner and admins see it; both naming styles of docs/product.md §3 are present. */
export interface ProjectDto {
  id: number;
  project_id: number;
  project_name: string;
  name: string;
  description: string | null;
  status: ProjectStatus;
  is_live: boolean;
  is_public: boolean;
  featured: boolean;
  file_size: number;
  file_count: number;
  upload_type: UploadType;
  /** How the newest version's files arrived; null before it was recorded. */
  upload_source: UploadSource | null;
  entry_file: string | null;
  created_at: string;
  createdAt: string;
  updated_at: string;
  /** When the newest version was uploaded (created_at is the first upload's). */
  uploaded_at: string;
  approved_at: string | null;
  approved_by: string | null;
  published_at: string | null;
  rejectionReason: string | null;
  /** Why the site was taken offline, while the project is taken_down (已下线). */
  takedownReason: string | null;
  /** The review actions the current user may take now (all false for a non-admin). */
  abilities: ProjectAbilities;
  viewCount: number;
  access_count: number;
  download_count: number;
  access_url: string | null;
  /** The site's name (docs/decisions/names.md), null when it is reached by its number. */
  site_name: string | null;
  owner: { id: number; username: string };
  files?: ProjectFileDto[];
  deployments?: DeploymentDto[];
  review_comments?: ReviewCommentDto[];
  live_version: number | null;
  latest_version: number | null;
  /** Detail only: the newest version's usability findings (how to fix them: CONTENT_CHECK_FIXES). */
  usability_findings?: ContentFinding[];
  /**
   * The rendered picture (640×400 WebP, docs/render.md) of the newest version that has one, else
   * null (the card shows the name's first letter).
   */
  thumbnail_url: string | null;
  /** How the site is routed (docs/product.md "A site's own routing"): the owner's switches, the newest version's rules. */
  routing: SiteRoutingDto;
}

/** The text of a version's `_redirects` and `_headers`, as uploaded (null: the file is absent). */
export interface SiteRulesDto {
  redirects: string | null;
  headers: string | null;
}

export interface SiteRoutingDto {
  /** Paths that match no file get index.html (history-routed single-page apps). */
  spa_fallback: boolean;
  /** `/about` finds `about.html`. */
  clean_urls: boolean;
  /** The newest version's rules; null when it has neither file. */
  rules: SiteRulesDto | null;
}

/** A showcase card: public fields only. */
export interface PublicProjectDto {
  id: number;
  project_id: number;
  project_name: string;
  name: string;
  description: string | null;
  published_at: string | null;
  file_count: number;
  file_size: number;
  featured: boolean;
  viewCount: number;
  /** Null when the live version has no home page: its address would open the 404 (docs/decisions/review.md). */
  access_url: string | null;
  site_name: string | null;
  owner: { username: string };
  /** The live version's rendered picture (640×400 WebP), null until rendered. */
  thumbnail_url: string | null;
}

/**
 * The showcase's pagination. total_capped: the search's matches were counted only up to
 * total_count, there are at least that many (a 3+ character term found in 500+ projects).
 */
export interface ShowcasePagination extends Pagination {
  total_capped: boolean;
}

export interface PreviewTokenDto {
  token: string;
  preview_url: string;
  expires_in_seconds: number;
  expires_at: string;
}

/**
 * GET /api/config/public: the settings marked `public` in SETTINGS (contracts/settings.ts), at the
 * place each names, and where sites are served.
 */
/**
 * `sites_port`: the default install's sites port (no SITES_ORIGIN), from which clients complete the
 * relative site addresses the API hands out (siteUrl.ts completeSiteUrl); null otherwise.
 */
export type PublicConfigDto = PublicSettingsValues & {
  sites_origin: string | null;
  sites_port: number | null;
  sites_subdomains: boolean;
  /** Notices are also sent by e-mail on this server (SMTP_URL is set). */
  mail_enabled: boolean;
};

/** GET /api/projects/site-name: a name checked, or suggested from a project name. */
export interface SiteNameDto {
  name: string | null;
  available: boolean;
  /** Why it can't be used, in Chinese; null when it can. */
  message: string | null;
}

/**
 * Counters of the owner's dashboard (docs/product.md §2): reviewed = approved, published, rejected
 * or taken down; published = live (approved or published).
 */
export interface MyProjectStats {
  total: number;
  pending: number;
  reviewed: number;
  published: number;
  taken_down: number;
}

/** The owner's storage: what all versions of their projects take, and the quota that applies. */
export interface StorageUsageDto {
  used_bytes: number;
  quota_bytes: number;
}

export interface MyProjectsData {
  projects: ProjectDto[];
  pagination: Pagination;
  stats: MyProjectStats;
  storage: StorageUsageDto;
}

/* ---- Review and admin console (GET /api/admin/...) ---- */

export type ContentCheckSeverity = 'high' | 'medium' | 'low' | 'info';
/** The badge: the highest severity of the risk findings, or clean. */
export type ContentCheckLevel = ContentCheckSeverity | 'clean';
/** Risk findings decide the level; usability findings are what the uploader should fix. */
export type ContentCheckCategory = 'risk' | 'usability';
export type ContentCheckKind =
  | 'missing_entry'
  | 'root_absolute_link'
  | 'missing_file'
  | 'external_script'
  | 'external_stylesheet'
  | 'external_frame'
  | 'password_form'
  | 'external_form'
  | 'redirect'
  | 'obfuscation'
  | 'crypto_miner'
  | 'type_mismatch'
  | 'svg_script'
  | 'large_file'
  | 'network_sink'
  | 'exfil_endpoint'
  | 'hidden_frame'
  | 'executable_download'
  | 'scam_text'
  | 'check_incomplete'
  // Found by the render worker while the page ran (docs/render.md).
  | 'runtime_request'
  | 'runtime_navigation'
  | 'runtime_download'
  | 'runtime_prompt'
  | 'runtime_memory'
  | 'blank_page'
  | 'console_error'
  | 'history_routing'
  | 'relative_assets'
  | 'runtime_canary'
  | 'render_failed';

export interface ContentFinding {
  severity: ContentCheckSeverity;
  /** Absent in reports stored before version 2: derived from the kind when read. */
  category: ContentCheckCategory;
  kind: ContentCheckKind;
  /** The rule that found it (server/src/content-check/rules.ts); absent in version 1 reports. */
  rule?: string;
  /** Chinese, for the review screen. */
  message: string;
  /** Path in the site, null for findings about the whole site. */
  file: string | null;
  /** 1-based line in that file, null when not about a line. */
  line: number | null;
  /** The line, trimmed and cut to ~160 characters, so the reviewer sees it without opening the file. */
  excerpt?: string | null;
}

/** What the review list shows as a badge: risk findings only. */
export interface ContentCheckSummary {
  level: ContentCheckLevel;
  /** Every risk finding counted, including those beyond the listed ones. */
  counts: Record<ContentCheckSeverity, number>;
  /** Why it got its level, in one Chinese sentence for the reviewer (computed when read). */
  reason: string;
  /**
   * Usability findings above info (a missing file, a script error, no entry page): the uploader's
   * problems, shown beside the risk level in the review list (computed when read).
   */
  usability_problems: number;
}

/** The content check of one deployment, computed at ingest and stored with it. */
export interface ContentCheckReport extends ContentCheckSummary {
  /** 2 since the risk/usability split; version 1 reports are upgraded when read. */
  version: 2;
  checked_at: string;
  /** Most severe first, then by file and line; at most 300 (risk and usability together). */
  findings: ContentFinding[];
  /** Usability findings counted (listed ones and beyond). */
  usability_count: number;
  /** Findings found but not listed (the list's cap, or more than 10 of one kind in one file). */
  omitted_findings: number;
  /** Other domains the site loads from, posts to, sends data to or redirects to, sorted. */
  external_domains: {
    scripts: string[];
    stylesheets: string[];
    frames: string[];
    forms: string[];
    redirects: string[];
    /** Hosts named in scripts (string literals, decoded strings) and links to downloads. */
    script_hosts: string[];
  };
  /** The five largest files, largest first. */
  largest_files: Array<{ file: string; size: number }>;
  /** HTML, CSS, JavaScript, SVG and other text files read. */
  scanned_files: number;
  /** Files read only in part (beyond the per-file or total read budget, or the time budget). */
  partially_scanned_files: string[];
  /**
   * The entry page's first script or stylesheet loaded by a relative path (`./assets/app.js`), or
   * null: with a client-side router that changes the path, a deep link can't load it (the render
   * notes it). Absent in reports made before it.
   */
  entry_relative_asset?: string | null;
  /** The site paths (`css/a.css`) of the missing files the static check found: the render lists them not again. */
  missing_paths?: string[];
  /** What the render worker saw when the page ran (docs/render.md); absent until rendered. */
  runtime?: ContentCheckRuntime;
}

/** The render's record of one run of the entry page, kept beside the static findings. */
export interface ContentCheckRuntime {
  rendered_at: string;
  /** Requests to other hosts: recorded and aborted (or loaded, under the public-assets setting). */
  external_requests: Array<{ method: string; url: string; resource_type: string; allowed: boolean }>;
  navigations: string[];
  downloads: string[];
  dialogs: string[];
  permissions: string[];
  console_errors: string[];
  missing: string[];
  blank: boolean;
  /**
   * Values the render's visitor typed (docs/render.md "The visitor") that the page sent: which
   * kind, from which field, to which host, how (request type) and how encoded. Absent before.
   */
  canary_leaks?: ContentCheckCanaryLeak[];
  /** `load` had not come by the deadline: the picture and the record were taken then. */
  load_timed_out?: boolean;
  /** The render failed after its retries (its reason): the record holds what was seen until then. */
  failed?: string | null;
  /** The visitor profiles the page was opened with (desktop, phone). */
  profiles?: string[];
  /** The rules of these findings start with "runtime.": a re-render replaces them. */
  risk_counts: Record<ContentCheckSeverity, number>;
}

/**
 * What a canary the render's visitor types stands for (server/src/render/canaries.ts); `keystrokes`:
 * keys the visitor pressed outside any field (docs/render.md "The visitor").
 */
export const CONTENT_CHECK_CANARY_KINDS = [
  'password',
  'card',
  'id_number',
  'sms_code',
  'phone',
  'email',
  'username',
  'text',
  'keystrokes',
] as const;
export type ContentCheckCanaryKind = (typeof CONTENT_CHECK_CANARY_KINDS)[number];

export interface ContentCheckCanaryLeak {
  kind: ContentCheckCanaryKind;
  field: string;
  host: string;
  url: string;
  via: string;
  encoding: string;
  external: boolean;
}

/** A project in the admin lists: the owner's view plus the content check badge of its newest version. */
export interface AdminProjectDto extends ProjectDto {
  content_check: ContentCheckSummary | null;
  /** When the newest version was uploaded, while it waits for review (else null). */
  pending_since: string | null;
  /** Pending list only: up to three file names of the newest version, entry file first. */
  file_names?: string[];
}

/** Counts for the review list's tabs (search applied, status filter not). */
export interface AdminProjectCounts {
  all: number;
  pending: number;
  /** 已发布: every live project, the featured ones included (statusesOfFilter). */
  approved: number;
  published: number;
  rejected: number;
  taken_down: number;
}

/** The review list's risk filter: a level, or versions never checked. */
export type ContentRiskFilter = ContentCheckLevel | 'unchecked';

export interface AdminProjectListData {
  projects: AdminProjectDto[];
  pagination: Pagination;
  counts: AdminProjectCounts;
}

export interface DiffFileDto {
  file: string;
  size: number;
}

export interface ChangedFileDto {
  file: string;
  old_size: number;
  new_size: number;
  /** A text type (HTML, CSS, JS…): its line diff can be asked for (GET .../file-diff). */
  text: boolean;
}

/** Files of the newest (pending) version against the live one, by path and content hash. */
export interface VersionDiffDto {
  from_version: number;
  to_version: number;
  added: DiffFileDto[];
  removed: DiffFileDto[];
  changed: ChangedFileDto[];
  unchanged_count: number;
  /** The routing files of the live and the newest version (null: neither file). */
  site_rules: { live: SiteRulesDto | null; newest: SiteRulesDto | null };
}

export interface ProjectStatsDto {
  view_count: number;
  download_count: number;
  /** The last 30 days (UTC), oldest first, days without views included as 0. */
  views_by_day: Array<{ day: string; views: number }>;
  views_last_7_days: number;
}

/** GET /api/admin/projects/{id} */
export interface AdminProjectDetailData {
  project: ProjectDto;
  /** The newest version's check (null only if it could not be read). */
  content_check: ContentCheckReport | null;
  /** The version the content check describes. */
  content_check_version: number | null;
  /** Present when the newest version differs from the live one. */
  diff: VersionDiffDto | null;
  stats: ProjectStatsDto;
  /** The render of the newest version, and of the live one when different (docs/render.md). */
  renders: RenderStateDto[];
}

export type RenderState = 'queued' | 'running' | 'done' | 'failed' | 'none';

/** Where a version's render stands, and why the last attempt failed. */
export interface RenderStateDto {
  version: number;
  /** The newest version (the one under review). */
  newest: boolean;
  /** The version visitors get. */
  live: boolean;
  state: RenderState;
  attempts: number;
  /** The last failed attempt's reason (a job queued again after a failure keeps it). */
  error: string | null;
  updated_at: string | null;
}

/** GET /api/admin/projects/{id}/source: lines of a text file of the newest version. */
/** GET /api/admin/projects/{id}/file-diff: one file of the live and the newest version. */
export interface AdminFileDiffData {
  path: string;
  from_version: number;
  to_version: number;
  /** Bytes in each version (null: the file is not in that version). */
  old_size: number | null;
  new_size: number | null;
  /** Either version is larger than FILE_DIFF_MAX_BYTES: no text is sent. */
  too_large: boolean;
  /** Each version's text (null: not in that version, or too large). */
  old_text: string | null;
  new_text: string | null;
}

export interface AdminSourceData {
  path: string;
  version: number;
  /** The 1-based number of lines[0]. */
  first_line: number;
  /** Up to 81 lines around the one asked for, each cut to 1,000 characters. */
  lines: string[];
  /** The file was longer than what was read (2 MB). */
  truncated: boolean;
}

/** This week against last week: rolling 7-day windows ending now. */
export interface WeekTrendDto {
  this_week: number;
  last_week: number;
  /** (this − last) / last × 100, one decimal; 0 when both are 0; null when last week was 0. */
  trend_percent: number | null;
}

/** GET /api/admin/stats */
export interface AdminStatsDto {
  projects: {
    total: number;
    pending: number;
    approved: number;
    published: number;
    rejected: number;
    taken_down: number;
    /** Served now (approved or published, or rejected new version with a live one). */
    live: number;
  };
  users: { total: number; admins: number; disabled: number };
  views: { total: number };
  downloads: { total: number };
  weekly: {
    /** New projects. */
    projects: WeekTrendDto;
    /** Uploads of files: new projects and new versions. */
    uploads: WeekTrendDto;
    approvals: WeekTrendDto;
    /** Rejections and takedowns. */
    rejections: WeekTrendDto;
    views: WeekTrendDto;
    users: WeekTrendDto;
  };
  /**
   * How live sites are kept apart (docs/decisions/serving.md "Serving sites"): 'sandboxed' on the app's
   * port (SITES_PORT=0), 'sites_port' on a port of their own shared by all sites, 'sites_origin'
   * on SITES_ORIGIN, 'subdomains' one origin per site. The dashboard warns for the first two.
   */
  site_isolation: SiteIsolation;
  generated_at: string;
}

export type SiteIsolationMode = 'sandboxed' | 'sites_port' | 'sites_origin' | 'subdomains';
/** Where sites are served and what keeps them apart (README "Serving sites"). */
export interface SiteIsolation {
  mode: SiteIsolationMode;
  sites_port: number | null;
}

export interface AuditLogDto {
  id: number;
  actor: { id: number | null; username: string } | null;
  action: string;
  /** Chinese name of the action (the raw action when unknown). */
  action_label: string;
  target_type: string | null;
  target_id: string | null;
  /**
   * The target's name: a user's username or a project's name as it is now, else as its deletion
   * recorded it; null when neither is known (a setting, an id never seen).
   */
  target_name: string | null;
  /** The user or project named has been deleted since: the page names it without a link. */
  target_gone: boolean;
  detail: Record<string, unknown> | null;
  ip: string | null;
  created_at: string;
}

export interface AuditLogListData {
  logs: AuditLogDto[];
  pagination: Pagination;
}

/** The editable platform settings (flat, so each field has its own error). */
/** The platform settings as the admin screen edits them: one field per entry of SETTINGS. */
export type AdminConfigDto = SettingsValues;

/** GET and PUT /api/admin/config */
export interface AdminConfigData {
  config: AdminConfigDto;
  defaults: AdminConfigDto;
  /** Every extension an admin may allow. */
  known_extensions: string[];
  sites_origin: string | null;
  /** How sites are served on this install, for the settings page (the same as the dashboard's). */
  site_isolation: SiteIsolation;
}
