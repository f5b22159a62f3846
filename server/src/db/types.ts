/**
 * Table types. Both engines store timestamps as ISO-8601 UTC text (sortable, identical on SQLite and
 * PostgreSQL) and flags as integers 0/1, so the same Kysely code and presenters serve both.
 */
import type { NotificationKind, UploadSource } from '@sitehall/contracts';
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export type Flag = 0 | 1;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** Lower-cased username, unique: sign-in is case-insensitive. */
  username_key: string;
  email: string | null;
  role: 'admin' | 'user';
  avatar: string | null;
  password_hash: string;
  disabled: Flag;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
  /** The account's own storage quota in bytes; null = the platform's setting. */
  storage_quota_bytes: number | null;
  /** 1: notices also come by e-mail (migration 016). */
  email_notifications: Generated<Flag>;
  /** Until when some address is refused for the account after wrong passwords (migration 026). */
  locked_until: Generated<string | null>;
  /** Part of the sign-in throttle's keys; an admin's unlock adds one (migration 026). */
  sign_in_epoch: Generated<number>;
  /** 1: the password was generated for the account and not yet changed by it (migration 034). */
  password_initial: Generated<Flag>;
}

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  remember: Flag;
  created_at: string;
  /**
   * When the password was given: a refresh's session keeps its predecessor's, and no session
   * outlives it by more than SESSION_MAX_MS (migration 042). Null only in a row an instance older
   * than the migration wrote (its created_at stands in).
   */
  signed_in_at: string | null;
  expires_at: string;
  last_used_at: string;
  ip: string | null;
  user_agent: string | null;
  /** Set when the session was ended for a reason to tell its holder ('account_disabled'); null while live. */
  ended_reason: Generated<SessionEndReason | null>;
}

/** Why a session that still exists no longer signs anyone in. */
export type SessionEndReason = 'account_disabled';

export interface ProjectsTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  description: string | null;
  /** pending | approved | published | rejected | taken_down: the state machine of docs/product.md. */
  status: 'pending' | 'approved' | 'published' | 'rejected' | 'taken_down';
  is_public: Flag;
  /** The deployment served at /sites/{id}/, null when not live. */
  live_deployment_id: number | null;
  /** The newest deployment (what the status describes). */
  latest_deployment_id: number | null;
  /** Published: marked 精选 in the showcase. */
  featured: Generated<Flag>;
  view_count: number;
  download_count: number;
  approved_at: string | null;
  approved_by: number | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  /** Lower-cased name + description + owner username, for substring search. */
  search_text: string;
  /**
   * PostgreSQL only (migration 038): the gram bloom of the own text of search_text
   * (search/bloom.ts ownBloom), written with it (repositories/projects.ts); SQLite has no such column.
   */
  gram_bloom?: string;
  /** The name's pinyin order (domain/name-order.ts): the showcase's 名称 sort. */
  name_sort_key: Generated<string>;
  /** The owner's routing switches (docs/product.md "A site's own routing"): index.html for unknown paths. */
  spa_fallback: Generated<Flag>;
  /** `/about` finds `about.html`. */
  clean_urls: Generated<Flag>;
  /** The site's name (docs/decisions/names.md), null when it is reached by its number. */
  site_name: Generated<string | null>;
}

/** Every name a project holds or gave up less than SITE_NAME_HOLD_DAYS ago, by skeleton. */
export interface SiteNamesTable {
  skeleton: string;
  name: string;
  /** Null once the project was deleted. */
  project_id: number | null;
  created_at: string;
  /** When the project gave it up; null while it is the project's name. */
  retired_at: string | null;
  /**
   * The account whose site held it, kept after the project is deleted (migration 036): the limit
   * on names given up counts by it. Null for rows of projects deleted before that migration.
   */
  owner_id: number | null;
}

export interface DeploymentsTable {
  id: Generated<number>;
  project_id: number;
  version: number;
  /** pending | approved | rejected | superseded */
  status: 'pending' | 'approved' | 'rejected' | 'superseded';
  upload_type: 'auto' | 'files' | 'zip';
  /** How the files arrived (an archive by its real format, a digest deploy); null before migration 012. */
  upload_source: UploadSource | null;
  file_count: number;
  total_size: number;
  entry_file: string | null;
  /** JSON: the content check's findings (review issue). */
  content_check: string | null;
  /** The check's risk level as a rank (0 clean, 1 info, 2 low, 3 medium, 4 high); null unchecked. */
  content_risk: number | null;
  created_by: number;
  created_at: string;
  reviewed_at: string | null;
  reviewed_by: number | null;
  review_comment: string | null;
  /** The render worker's pictures (docs/render.md): 640×400 and 320×200 WebP blobs; null until rendered. */
  thumbnail_sha256: Generated<string | null>;
  thumbnail_small_sha256: Generated<string | null>;
  rendered_at: Generated<string | null>;
  /** JSON {redirects?, headers?}: the version's _redirects and _headers as checked at upload; null: none. */
  site_rules: Generated<string | null>;
}

export interface DeploymentFilesTable {
  id: Generated<number>;
  deployment_id: number;
  /** NFC-normalised path relative to the site root, '/'-separated, no leading slash. */
  path: string;
  size: number;
  mime_type: string;
  extension: string;
  sha256: string;
  /** 1: not web content, served as a download only (its mime_type is application/octet-stream). */
  download_only: Generated<Flag>;
}

export interface ReviewCommentsTable {
  id: Generated<number>;
  project_id: number;
  deployment_id: number | null;
  actor_id: number | null;
  action: string;
  comment: string | null;
  created_at: string;
}

export interface AuditLogsTable {
  id: Generated<number>;
  actor_id: number | null;
  actor_name: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  /** JSON details; never secrets. */
  detail: string | null;
  ip: string | null;
  created_at: string;
}

export interface PreviewTokensTable {
  id: Generated<number>;
  project_id: number;
  deployment_id: number;
  token_hash: string;
  created_by: number;
  created_at: string;
  expires_at: string;
  revoked: Flag;
}

export interface ProjectDailyViewsTable {
  project_id: number;
  /** YYYY-MM-DD (UTC) */
  day: string;
  views: number;
}

export interface SettingsTable {
  key: string;
  /** JSON */
  value: string;
  updated_at: string;
}

/** The showcase search index (migration 002; search/index-maintenance.ts keeps it). */
export interface ShowcaseGramsTable {
  /** One or two characters of a listed project's normalised search text. */
  gram: string;
  featured: Flag;
  /** The project's owner (migration 035): an author's projects holding a gram are one range. */
  owner_id: number;
  project_id: number;
}

export interface ShowcaseGramCountsTable {
  gram: string;
  /** Listed (and listed featured) projects whose name or description holds the gram. */
  listed: number;
  featured: number;
  /** Listed authors whose username holds it (migration 028)... */
  authors: number;
  /** ...and those authors' listed (and listed featured) projects. */
  author_listed: number;
  author_featured: number;
}

export interface ShowcaseEntriesTable {
  project_id: number;
  featured: Flag;
  /** The normalised name and description as indexed (lines; the author is indexed apart). */
  text: string;
  /** The project's owner: the author whose listed counts it moves. */
  owner_id: number;
  /**
   * PostgreSQL only (migration 037): the text's distinct grams (search/plan.ts gramsOf), the same
   * set as its postings in showcase_grams, under a GIN index; SQLite has no such column.
   */
  grams?: string[];
}

/** An author with a listed project (migration 028): their normalised username and listed counts. */
export interface ShowcaseAuthorsTable {
  owner_id: number;
  text: string;
  listed: number;
  featured: number;
}

/** One row per distinct 1- and 2-character gram of a listed author's normalised username. */
export interface ShowcaseAuthorGramsTable {
  gram: string;
  owner_id: number;
}

/** Projects whose showcase listing may have changed (filled by triggers on projects). */
export interface ShowcaseQueueTable {
  project_id: number;
}

export interface ShowcaseTotalsTable {
  id: number;
  listed: number;
  featured: number;
  /** Grows with every change applied to the index. */
  version: number;
}

/** Which instance runs a timed job until when (migration 003). */
export interface JobLeasesTable {
  name: string;
  holder: string;
  expires_at: string;
  runs: number;
}

/** Blobs an upload is storing before its rows exist: no sweep or delete may remove them. */
export interface BlobLeasesTable {
  upload_id: string;
  sha256: string;
  created_at: string;
}

/** One accepted upload (new project or new version), counted by the hourly upload limit. */
export interface UploadEventsTable {
  id: Generated<number>;
  user_id: number;
  created_at: string;
}

/** A personal API token (migration 011): only its SHA-256 is kept. */
export interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  /** `sht_` and the next 8 characters, to tell tokens apart; null for tokens made before 013. */
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
}

/**
 * A digest deploy begun and not yet finished (migration 011). `manifest` is JSON: path → SHA-256.
 * Its uploaded blobs are leased under `deploy:{id}` until it finishes or expires.
 */
export interface DeploysTable {
  id: string;
  user_id: number;
  project_id: number | null;
  project_name: string | null;
  description: string | null;
  /** The site name asked for (migration 020), claimed when the deploy finishes. */
  site_name: Generated<string | null>;
  /** path → SHA-256 (JSON): every file, or for a base-version deploy only the new and changed ones. */
  manifest: string;
  /**
   * A base-version deploy's base (migration 032): JSON `{ deployment_id, version, removed }`, the
   * base version's row id and number and the paths it removes; null for a full manifest.
   */
  base: Generated<string | null>;
  /** Bytes uploaded to this deploy so far (bounded by the upload size limit). */
  received_bytes: number;
  created_at: string;
  expires_at: string;
}

/** The first upload an account made with an idempotency key (kept a day). */
export interface UploadKeysTable {
  user_id: number;
  idempotency_key: string;
  project_id: number;
  deployment_id: number;
  /** The method and path the key was first sent with ('' for keys older than migration 029). */
  request: Generated<string>;
  /**
   * The fingerprint of the upload's fields and files (services/uploads.ts payloadOf; '' for keys
   * older than migration 043 and for digest deploys' finishes).
   */
  payload: Generated<string>;
  created_at: string;
}

export type RenderJobStatus = 'queued' | 'running' | 'done' | 'failed';

/** One render of a deployment (migration 010, docs/render.md). */
export interface RenderJobsTable {
  id: Generated<number>;
  deployment_id: number;
  project_id: number;
  status: RenderJobStatus;
  attempts: Generated<number>;
  error: string | null;
  holder: string | null;
  lease_until: string | null;
  run_after: string;
  duration_ms: number | null;
  created_at: string;
  updated_at: string;
}

/**
 * The turn in which each account's render was last taken (migration 030): the render queue takes
 * the oldest due job of the account with the lowest turn first (docs/render.md "Jobs").
 */
export interface RenderTurnsTable {
  owner_id: number;
  turn: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  projects: ProjectsTable;
  deployments: DeploymentsTable;
  deployment_files: DeploymentFilesTable;
  review_comments: ReviewCommentsTable;
  audit_logs: AuditLogsTable;
  preview_tokens: PreviewTokensTable;
  project_daily_views: ProjectDailyViewsTable;
  settings: SettingsTable;
  showcase_grams: ShowcaseGramsTable;
  showcase_gram_counts: ShowcaseGramCountsTable;
  showcase_entries: ShowcaseEntriesTable;
  showcase_authors: ShowcaseAuthorsTable;
  showcase_author_grams: ShowcaseAuthorGramsTable;
  showcase_queue: ShowcaseQueueTable;
  showcase_totals: ShowcaseTotalsTable;
  job_leases: JobLeasesTable;
  blob_leases: BlobLeasesTable;
  upload_events: UploadEventsTable;
  api_tokens: ApiTokensTable;
  deploys: DeploysTable;
  render_jobs: RenderJobsTable;
  render_turns: RenderTurnsTable;
  upload_keys: UploadKeysTable;
  notifications: NotificationsTable;
  mail_outbox: MailOutboxTable;
  project_daily_pages: ProjectDailyPagesTable;
  project_daily_referrers: ProjectDailyReferrersTable;
  project_daily_bytes: ProjectDailyBytesTable;
  content_check_traces: ContentCheckTracesTable;
  site_names: SiteNamesTable;
  custom_domains: CustomDomainsTable;
}

/** A stored trace of the content check (migration 024; docs/content-check.md "Stored traces"). */
export interface ContentCheckTracesTable {
  key: string;
  check_version: string;
  trace: string;
  used_on: string;
}

/** A notice under an account's bell (migration 016). */
export interface NotificationsTable {
  id: Generated<number>;
  user_id: number;
  kind: NotificationKind;
  project_id: number | null;
  project_name: string;
  version: number | null;
  reason: string | null;
  read_at: string | null;
  created_at: string;
}
export type NotificationRow = Selectable<NotificationsTable>;

/** An e-mail waiting to be sent, being sent (under a lease), or done with (migration 016). */
export interface MailOutboxTable {
  id: Generated<number>;
  user_id: number;
  subject: string;
  body: string;
  status: 'queued' | 'sending' | 'sent' | 'failed' | 'skipped';
  attempts: Generated<number>;
  error: string | null;
  holder: string | null;
  lease_until: string | null;
  run_after: string;
  created_at: string;
  updated_at: string;
}
export type MailOutboxRow = Selectable<MailOutboxTable>;

/** Page views per path, views per referring host, bytes served: per project and UTC day (017). */
export interface ProjectDailyPagesTable {
  project_id: number;
  day: string;
  path: string;
  views: number;
}
export interface ProjectDailyReferrersTable {
  project_id: number;
  day: string;
  host: string;
  views: number;
}
export interface ProjectDailyBytesTable {
  project_id: number;
  day: string;
  bytes: number;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type DeploymentRow = Selectable<DeploymentsTable>;
export type DeploymentFileRow = Selectable<DeploymentFilesTable>;
export type ProjectUpdate = Updateable<ProjectsTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type DeployRow = Selectable<DeploysTable>;

/** A domain attached to a project (migration 021); served once verified (and approved, if required). */
export interface CustomDomainsTable {
  id: Generated<number>;
  project_id: number;
  /** Lower-case ASCII, no trailing dot. */
  domain: string;
  /** The _sitehall.{domain} TXT value that proves control. */
  token: string;
  verified_at: string | null;
  approved_at: string | null;
  approved_by: number | null;
  created_by: number | null;
  created_at: string;
}
export type CustomDomainRow = Selectable<CustomDomainsTable>;
