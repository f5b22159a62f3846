/** Limits and allowed types (docs/product.md "Uploads"). The server's config holds the live values. */
import { FILE_TYPES } from './file-types.js';

export const SPEC_EXTENSIONS = [
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
] as const;

/** The types real sites load beyond the spec's list (FILE_TYPES holds their facts). */
export const EXTRA_EXTENSIONS: readonly string[] = Object.keys(FILE_TYPES).filter(
  (ext) => !(SPEC_EXTENSIONS as readonly string[]).includes(ext),
);

/**
 * The web types: files served as web content with their own Content-Type, every type of
 * FILE_TYPES (file-types.ts), the spec's first (messages list them in this order). The one list
 * the upload picker's accept attribute, the settings page's defaults and the server's rules
 * derive from.
 */
export const WEB_FILE_TYPES: readonly string[] = [...SPEC_EXTENSIONS, ...EXTRA_EXTENSIONS];

/**
 * Executables, installers and server-side scripts: they refuse the whole upload (a static site has
 * no use for them, and they signal abuse), and no admin may allow them. Source files of languages
 * a site may document (.py, .rb, .ts) are not here: they are only downloads (docs/decisions.md).
 */
export const FORBIDDEN_EXTENSIONS: readonly string[] = [
  // Windows executables, libraries, installers and scripts
  'exe',
  'msi',
  'msp',
  'dll',
  'com',
  'scr',
  'pif',
  'cpl',
  'bat',
  'cmd',
  'ps1',
  'vbs',
  'vbe',
  'wsf',
  'hta',
  'lnk',
  // other platforms' packages and executables
  'jar',
  'apk',
  'dmg',
  'pkg',
  'deb',
  'rpm',
  'appimage',
  'run',
  'sh',
  'bash',
  // server-side scripts
  'php',
  'php3',
  'php4',
  'php5',
  'php7',
  'phtml',
  'phar',
  'asp',
  'aspx',
  'ashx',
  'asmx',
  'jsp',
  'jspx',
  'cgi',
  'pl',
];

/**
 * What an upload does with a file of a type that is neither a web type nor forbidden (a LICENSE, a
 * dotfile, an .scss source, a .gz): keep it as a download only, drop it, or refuse the upload.
 */
export const UNKNOWN_FILE_TYPE_MODES = ['download', 'skip', 'refuse'] as const;
export type UnknownFileTypeMode = (typeof UNKNOWN_FILE_TYPE_MODES)[number];

/** An extension an admin may type: letters, digits and inner '-', '_' or '+', up to 16 characters. */
export const EXTENSION_PATTERN = /^[a-z0-9](?:[a-z0-9_+-]{0,14}[a-z0-9])?$/;

/** How many names a refusal lists before "等 N 个文件". */
export const REFUSAL_NAMES_SHOWN = 20;

export const MB = 1024 * 1024;

export interface UploadLimits {
  maxFilesPerUpload: number;
  maxFileBytes: number;
  maxUploadBytes: number;
  maxArchiveEntries: number;
  maxArchiveUncompressedBytes: number;
  allowedExtensions: string[];
  unknownFileTypes: UnknownFileTypeMode;
}

export const DEFAULT_LIMITS: UploadLimits = {
  maxFilesPerUpload: 20,
  maxFileBytes: 100 * MB,
  maxUploadBytes: 200 * MB,
  maxArchiveEntries: 10_000,
  maxArchiveUncompressedBytes: 500 * MB,
  allowedExtensions: [...WEB_FILE_TYPES],
  unknownFileTypes: 'download',
};

export const DEFAULT_PREVIEW_TTL_SECONDS = 30 * 60;

/** Stored bytes each account may keep over all its projects' versions, unless an admin set its own. */
export const DEFAULT_USER_STORAGE_BYTES = 1024 * MB;
/** Bounds of the platform's storage quota and of an account's own (inclusive). */
export const USER_STORAGE_BOUNDS = { min: 10 * MB, max: 100 * 1024 * 1024 * MB } as const;
/** Accepted uploads (new projects and new versions) per account per hour; 0 = no limit. */
export const DEFAULT_UPLOADS_PER_HOUR = 30;

export const PROJECT_NAME_MIN = 2;
/** The largest id a row can have (a 32-bit integer column on PostgreSQL). */
export const ID_MAX = 2_147_483_647;

/** Projects one batch action takes at most (POST /api/admin/projects/batch). */
export const BATCH_MAX_PROJECTS = 100;

export const PROJECT_NAME_MAX = 50;
export const DESCRIPTION_MAX = 500;
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 32;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const GENERATED_PASSWORD_LENGTH = 20;

export const DASHBOARD_RECENT_COUNT = 5;
export const ADMIN_PENDING_COUNT = 5;
export const ADMIN_PENDING_FILE_NAMES = 3;
export const CONTENT_CHECK_BYTES = 1024;
/**
 * The review's line diff of a changed text file (docs/decisions/review.md "Review detail"): either
 * version larger than this shows sizes only, so no request reads or sends megabytes.
 */
export const FILE_DIFF_MAX_BYTES = 512 * 1024;
export const COPY_FEEDBACK_MS = 3_000;

/** Sizes in B, KB, MB, GB with base 1024 (docs/product.md §9). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 B';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  const i = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  const value = bytes / 1024 ** i;
  return `${i === 0 ? value : Number.parseFloat(value.toFixed(2))} ${units[i]}`;
}

/** The extension of a path, lower case, without the dot ('' when none). */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/**
 * Zip downloads of projects one account may have in flight at once (docs/security.md): each
 * compresses its text on the shared zlib threads, which the file reads of every upload and site wait
 * for too.
 */
export const DOWNLOADS_IN_FLIGHT_MAX = 2;

/**
 * Uploads (a new project or version, multipart) one account may have under way at once on an
 * instance (docs/security.md): each holds the ingest and check workers and staging disk every
 * account shares. A browser sends one at a time; three leave room for a second tab and a script.
 */
export const UPLOADS_IN_FLIGHT_MAX = 3;

/**
 * A digest deploy's file transfers (a batch POST or one file's PUT) one account may have under way
 * at once on an instance: each holds a connection and staging disk. The CLI sends three batches at
 * once (eight single-file PUTs where batches are not offered); an outside review held 19 slow PUTs.
 */
export const DEPLOY_TRANSFERS_IN_FLIGHT_MAX = 8;

/**
 * Preview links an account may make in PREVIEW_LINKS_WINDOW_MS (admins: no limit). Each writes an
 * entry to the append-only audit log, which a loop would otherwise grow without end.
 */
export const PREVIEW_LINKS_MAX = 30;
export const PREVIEW_LINKS_WINDOW_MS = 10 * 60_000;

/**
 * Audited writes one account may make in AUDITED_WRITES_WINDOW_MS, every route that writes an
 * audit entry sharing the one budget (endpoints.ts `audited`; admins: no limit). The audit log is
 * append-only and kept for good, so a loop of edits (100 in 2.4 s were seen) grew it without end;
 * past the budget the next such request is 429 and writes nothing (docs/decisions/operations.md
 * "A budget of audited writes per account").
 */
export const AUDITED_WRITES_MAX = 100;
export const AUDITED_WRITES_WINDOW_MS = 10 * 60_000;

/** Framing around an upload's files in its request body (multipart boundaries, headers). */
export const UPLOAD_FRAMING_BYTES = 1024 * 1024;
/**
 * Archive framing (entry headers, the directory) in a body that may not end up stored: a body up to
 * this share larger than what is left may still fit once extracted.
 */
export const ARCHIVE_FRAMING_SHARE = 0.05;

/**
 * The least an upload of `bodyBytes` can store: an upload sure to pass the quota is refused before
 * it is sent (the upload page, from the files' sizes) or read (the server, from Content-Length), by
 * the same rule (docs/decisions/uploads.md "Storage quota and upload rate").
 */
export function leastStoredBytes(bodyBytes: number): number {
  return Math.max(0, Math.floor((bodyBytes - UPLOAD_FRAMING_BYTES) * (1 - ARCHIVE_FRAMING_SHARE)));
}
