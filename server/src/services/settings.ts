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
  KNOWN_EXTENSIONS,
  messages,
  type PublicConfigDto,
  publicSettingsOf,
  SETTING_KEYS,
  SETTINGS,
  type SettingKey,
  type SiteIsolation,
  settingDefaults,
  type UploadLimits,
} from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { Actor } from '../domain/actor.js';
import { alwaysHears, type HearsChanges, maxAge } from '../domain/cache-lifetime.js';
import { Invalid } from '../domain/errors.js';
import type { RequestMeta } from '../domain/request-meta.js';
import type { Repositories } from '../repositories/index.js';
import type { AuditService } from './audit.js';

export interface PlatformSettings {
  limits: UploadLimits;
  previewTtlSeconds: number;
  /** Each account's storage quota, unless an admin gave the account its own. */
  userStorageBytes: number;
  /** Accepted uploads per account per hour; 0 = no limit. */
  uploadsPerHour: number;
  /** The render worker (docs/render.md). */
  render: RenderSettings;
  /** Verified custom domains wait for an admin's approval before they are served. */
  customDomainsRequireApproval: boolean;
}

export interface RenderSettings {
  /** Renders at once on each instance. */
  concurrency: number;
  /** Pages a Chromium renders before it is restarted. */
  pagesPerBrowser: number;
  /** Public-internet stylesheets, fonts and images may load (never private addresses). */
  allowPublicAssets: boolean;
}

/** The places of single values inside PlatformSettings ('limits.maxFileBytes'). */
type StoredPath =
  | Exclude<keyof PlatformSettings, 'limits' | 'render'>
  | `limits.${keyof UploadLimits}`
  | `render.${keyof RenderSettings}`;

// Each setting's `stored` must name a place in PlatformSettings: a wrong or missing one fails here.
const STORED_PATHS: Record<SettingKey, StoredPath> = Object.fromEntries(
  SETTING_KEYS.map((key) => [key, SETTINGS[key].stored]),
) as { [K in SettingKey]: (typeof SETTINGS)[K]['stored'] };

function readPath(from: unknown, path: string): unknown {
  let at = from;
  for (const part of path.split('.')) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

function writePath(into: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = into;
  for (const part of parts.slice(0, -1)) {
    at[part] ??= {};
    at = at[part] as Record<string, unknown>;
  }
  at[parts[parts.length - 1] as string] = value;
}

const copy = (value: unknown) => (Array.isArray(value) ? [...value] : value);

/** The settings as the admin screen edits them (flat snake_case, one error per field). */
export function toAdminConfig(s: PlatformSettings): AdminConfigDto {
  const config: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) config[key] = copy(readPath(s, STORED_PATHS[key]));
  return config as AdminConfigDto;
}

/**
 * The stored object from the admin's values. Over whatever was stored before, each setting falls
 * back to its default: a setting added later is read from an older row as its default.
 */
function fromAdminConfig(c: Partial<AdminConfigDto>): PlatformSettings {
  const settings: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    writePath(settings, STORED_PATHS[key], copy(c[key] ?? SETTINGS[key].default));
  }
  return settings as unknown as PlatformSettings;
}

export const DEFAULT_SETTINGS: PlatformSettings = fromAdminConfig(settingDefaults());

const KEY = 'platform';

export function createSettingsService(
  db: DB,
  opts: {
    sitesOrigin?: string;
    siteIsolation: SiteIsolation;
    /** Notices go out by e-mail too (SMTP_URL): the profile page says whether its switch can. */
    mailEnabled?: boolean;
    audit: Pick<AuditService, 'record'>;
    /** The settings table (repositories/settings.ts). */
    table: Repositories['settings'];
    /**
     * After a saved change: tells the other instances to forget their cached copy, and brings
     * what derives from the settings here up to date (awaited before the change is answered).
     */
    onChange?: () => void | Promise<void>;
    /** Whether other instances' changes reach this one now; if not, the cache is kept briefly. */
    hearsChanges?: HearsChanges;
  },
) {
  const settingsTable = opts.table;
  const hears = opts.hearsChanges ?? alwaysHears;
  let cached: PlatformSettings | undefined;
  let cachedAt = 0;
  let generation = 0;
  const remember = (next: PlatformSettings, at = Date.now()) => {
    cached = next;
    cachedAt = at;
  };

  async function load(): Promise<PlatformSettings> {
    const value = await settingsTable.get(db, KEY);
    const stored: unknown = value ? JSON.parse(value) : {};
    const values: Partial<AdminConfigDto> = {};
    for (const key of SETTING_KEYS) {
      const v = readPath(stored, STORED_PATHS[key]);
      if (v !== undefined) Object.assign(values, { [key]: v });
    }
    return fromAdminConfig(values);
  }

  async function save(next: PlatformSettings, trx: DB): Promise<void> {
    await settingsTable.put(trx, KEY, JSON.stringify(next), now());
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
      await opts.onChange?.();
      return next;
    },
    async adminConfig(): Promise<AdminConfigData> {
      return {
        config: toAdminConfig(await this.get()),
        defaults: toAdminConfig(DEFAULT_SETTINGS),
        known_extensions: [...KNOWN_EXTENSIONS],
        sites_origin: opts.sitesOrigin ?? null,
        site_isolation: opts.siteIsolation,
      };
    },

    /**
     * Applies an admin's change (already validated field by field by the contract's schema) over
     * the current settings; uploads, previews and the public config see it from the next request.
     * Only a real change is saved and audited, with each changed field's old and new value.
     */
    async change(actor: Actor, patch: AdminConfigChange, meta: RequestMeta): Promise<AdminConfigData> {
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
            { actor, action: 'config.update', targetType: 'config', detail: changed, ip: meta.ip },
            trx,
          );
        });
        remember(next);
        await opts.onChange?.();
      }
      return this.adminConfig();
    },

    /** Forgets the cache (another instance changed the settings). */
    invalidate() {
      generation++;
      cached = undefined;
    },
    /** The settings marked public in SETTINGS, where each says, and where sites are served. */
    async publicConfig(): Promise<PublicConfigDto> {
      return {
        ...publicSettingsOf(toAdminConfig(await this.get())),
        sites_origin: opts.sitesOrigin ?? null,
        // Clients complete the relative site addresses of the default install from it.
        sites_port: opts.siteIsolation.sites_port,
        sites_subdomains: opts.siteIsolation.mode === 'subdomains',
        mail_enabled: opts.mailEnabled ?? false,
      };
    },
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
