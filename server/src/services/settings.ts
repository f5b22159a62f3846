/**
 * Platform settings editable by admins (limits, allowed types and what happens to other types,
 * preview lifetime, each account's storage quota and uploads per hour), stored in the
 * settings table over the defaults of docs/product.md and cached in memory. One set of numbers used by
 * the upload pipeline, the public config endpoint and the admin screen.
 */
import {
  type AdminConfigChange,
  type AdminConfigData,
  type AdminConfigDto,
  DEFAULT_LIMITS,
  DEFAULT_PREVIEW_TTL_SECONDS,
  DEFAULT_UPLOADS_PER_HOUR,
  DEFAULT_USER_STORAGE_BYTES,
  KNOWN_EXTENSIONS,
  messages,
  type PublicConfigDto,
  type UploadLimits,
} from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { Actor } from '../domain/actor.js';
import { Invalid } from '../domain/errors.js';
import type { AuditService } from './audit.js';
import { alwaysHears, type HearsChanges, maxAge } from './cache-lifetime.js';

export interface PlatformSettings {
  limits: UploadLimits;
  previewTtlSeconds: number;
  /** Each account's storage quota, unless an admin gave the account its own. */
  userStorageBytes: number;
  /** Accepted uploads per account per hour; 0 = no limit. */
  uploadsPerHour: number;
  /** The render worker (docs/render.md). */
  render: { concurrency: number; pagesPerBrowser: number; allowPublicAssets: boolean };
}

export const DEFAULT_SETTINGS: PlatformSettings = {
  limits: DEFAULT_LIMITS,
  previewTtlSeconds: DEFAULT_PREVIEW_TTL_SECONDS,
  userStorageBytes: DEFAULT_USER_STORAGE_BYTES,
  uploadsPerHour: DEFAULT_UPLOADS_PER_HOUR,
  render: { concurrency: 1, pagesPerBrowser: 50, allowPublicAssets: false },
};

const KEY = 'platform';

/** The settings as the admin screen edits them (flat snake_case, one error per field). */
export function toAdminConfig(s: PlatformSettings): AdminConfigDto {
  return {
    max_files_per_upload: s.limits.maxFilesPerUpload,
    max_file_bytes: s.limits.maxFileBytes,
    max_upload_bytes: s.limits.maxUploadBytes,
    max_archive_entries: s.limits.maxArchiveEntries,
    max_archive_uncompressed_bytes: s.limits.maxArchiveUncompressedBytes,
    allowed_extensions: [...s.limits.allowedExtensions],
    unknown_file_types: s.limits.unknownFileTypes,
    preview_ttl_seconds: s.previewTtlSeconds,
    max_user_storage_bytes: s.userStorageBytes,
    max_uploads_per_hour: s.uploadsPerHour,
    render_concurrency: s.render.concurrency,
    render_pages_per_browser: s.render.pagesPerBrowser,
    render_allow_public_assets: s.render.allowPublicAssets,
  };
}

function fromAdminConfig(c: AdminConfigDto): PlatformSettings {
  return {
    limits: {
      maxFilesPerUpload: c.max_files_per_upload,
      maxFileBytes: c.max_file_bytes,
      maxUploadBytes: c.max_upload_bytes,
      maxArchiveEntries: c.max_archive_entries,
      maxArchiveUncompressedBytes: c.max_archive_uncompressed_bytes,
      allowedExtensions: c.allowed_extensions,
      unknownFileTypes: c.unknown_file_types,
    },
    previewTtlSeconds: c.preview_ttl_seconds,
    userStorageBytes: c.max_user_storage_bytes,
    uploadsPerHour: c.max_uploads_per_hour,
    render: {
      concurrency: c.render_concurrency,
      pagesPerBrowser: c.render_pages_per_browser,
      allowPublicAssets: c.render_allow_public_assets,
    },
  };
}

export function createSettingsService(
  db: DB,
  opts: {
    sitesOrigin?: string;
    audit: AuditService;
    /** After a saved change: tells the other instances to forget their cached copy. */
    onChange?: () => void;
    /** Whether other instances' changes reach this one now; if not, the cache is kept briefly. */
    hearsChanges?: HearsChanges;
  },
) {
  const hears = opts.hearsChanges ?? alwaysHears;
  let cached: PlatformSettings | undefined;
  let cachedAt = 0;
  let generation = 0;
  const remember = (next: PlatformSettings, at = Date.now()) => {
    cached = next;
    cachedAt = at;
  };

  async function load(): Promise<PlatformSettings> {
    const row = await db.selectFrom('settings').select('value').where('key', '=', KEY).executeTakeFirst();
    const stored = row ? (JSON.parse(row.value) as Partial<PlatformSettings>) : {};
    return {
      limits: { ...DEFAULT_SETTINGS.limits, ...stored.limits },
      previewTtlSeconds: stored.previewTtlSeconds ?? DEFAULT_SETTINGS.previewTtlSeconds,
      userStorageBytes: stored.userStorageBytes ?? DEFAULT_SETTINGS.userStorageBytes,
      uploadsPerHour: stored.uploadsPerHour ?? DEFAULT_SETTINGS.uploadsPerHour,
      render: { ...DEFAULT_SETTINGS.render, ...stored.render },
    };
  }

  async function save(next: PlatformSettings, trx: DB): Promise<void> {
    const value = JSON.stringify(next);
    const at = now();
    await trx
      .insertInto('settings')
      .values({ key: KEY, value, updated_at: at })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: at }))
      .execute();
  }

  return {
    async get(): Promise<PlatformSettings> {
      if (cached && Date.now() - cachedAt <= maxAge(Number.POSITIVE_INFINITY, hears)) return cached;
      const [startedAt, at] = [generation, Date.now()];
      const loaded = await load();
      // Don't cache an answer that an invalidation overtook while it was read.
      if (startedAt === generation) remember(loaded, at);
      return loaded;
    },
    async update(next: PlatformSettings): Promise<PlatformSettings> {
      await save(next, db);
      remember(next);
      opts.onChange?.();
      return next;
    },
    async adminConfig(): Promise<AdminConfigData> {
      return {
        config: toAdminConfig(await this.get()),
        defaults: toAdminConfig(DEFAULT_SETTINGS),
        known_extensions: [...KNOWN_EXTENSIONS],
        sites_origin: opts.sitesOrigin ?? null,
      };
    },

    /**
     * Applies an admin's change (already validated field by field by the contract's schema) over
     * the current settings; uploads, previews and the public config see it from the next request.
     * Only a real change is saved and audited, with each changed field's old and new value.
     */
    async change(actor: Actor, patch: AdminConfigChange, ip: string): Promise<AdminConfigData> {
      const before = toAdminConfig(await this.get());
      const after: AdminConfigDto = { ...before };
      for (const [key, value] of Object.entries(patch) as [keyof AdminConfigDto, never][]) {
        if (value !== undefined) after[key] = value;
      }
      if (after.max_file_bytes > after.max_upload_bytes) {
        throw new Invalid('max_file_bytes', messages.review.configFileOverUpload);
      }
      const changed: Record<string, { from: unknown; to: unknown }> = {};
      for (const key of Object.keys(after) as (keyof AdminConfigDto)[]) {
        if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
          changed[key] = { from: before[key], to: after[key] };
        }
      }
      if (Object.keys(changed).length > 0) {
        const next = fromAdminConfig(after);
        await db.transaction().execute(async (trx) => {
          await save(next, trx);
          await opts.audit.record(
            { actor, action: 'config.update', targetType: 'config', detail: changed, ip },
            trx,
          );
        });
        remember(next);
        opts.onChange?.();
      }
      return this.adminConfig();
    },

    /** Forgets the cache (another instance changed the settings). */
    invalidate() {
      generation++;
      cached = undefined;
    },
    async publicConfig(): Promise<PublicConfigDto> {
      const s = await this.get();
      return {
        limits: {
          max_files_per_upload: s.limits.maxFilesPerUpload,
          max_file_bytes: s.limits.maxFileBytes,
          max_upload_bytes: s.limits.maxUploadBytes,
          max_archive_entries: s.limits.maxArchiveEntries,
          max_archive_uncompressed_bytes: s.limits.maxArchiveUncompressedBytes,
        },
        allowed_extensions: s.limits.allowedExtensions,
        unknown_file_types: s.limits.unknownFileTypes,
        preview_ttl_seconds: s.previewTtlSeconds,
        sites_origin: opts.sitesOrigin ?? null,
      };
    },
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
