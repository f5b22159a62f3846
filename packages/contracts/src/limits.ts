/** Limits and allowed types (DECISIONS.md "Uploads"). The server's config holds the live values. */

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

export const EXTRA_EXTENSIONS = [
  'htm',
  'mjs',
  'map',
  'xml',
  'webmanifest',
  'ico',
  'webp',
  'avif',
  'bmp',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'mp3',
  'mp4',
  'webm',
  'ogg',
  'wav',
  'pdf',
  'csv',
  'wasm',
] as const;

export const ARCHIVE_EXTENSIONS = ['zip', 'rar', '7z'] as const;

export const MB = 1024 * 1024;

export interface UploadLimits {
  maxFilesPerUpload: number;
  maxFileBytes: number;
  maxUploadBytes: number;
  maxArchiveEntries: number;
  maxArchiveUncompressedBytes: number;
  allowedExtensions: string[];
}

export const DEFAULT_LIMITS: UploadLimits = {
  maxFilesPerUpload: 20,
  maxFileBytes: 100 * MB,
  maxUploadBytes: 200 * MB,
  maxArchiveEntries: 10_000,
  maxArchiveUncompressedBytes: 500 * MB,
  allowedExtensions: [...SPEC_EXTENSIONS, ...EXTRA_EXTENSIONS],
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
export const REQUEST_TIMEOUT_MS = 10_000;
export const COPY_FEEDBACK_MS = 3_000;

/** Sizes in Bytes, KB, MB, GB with base 1024 (spec §9). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  const units = ['Bytes', 'KB', 'MB', 'GB', 'TB'];
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
