/** Admin console requests: platform settings, audit log and pending list queries. */
import { z } from 'zod';
import {
  EXTENSION_PATTERN,
  FORBIDDEN_EXTENSIONS,
  ID_MAX,
  MB,
  UNKNOWN_FILE_TYPE_MODES,
  USER_STORAGE_BOUNDS,
  WEB_FILE_TYPES,
} from '../limits.js';
import { reviewMessages as m } from '../messages/review.js';
import { format } from '../messages.js';
import { NO_CONTROL_CHARS } from './auth.js';

export {
  AUDIT_ACTION_LABELS,
  AUDIT_TARGET_LABELS,
  CONTENT_CHECK_FIXES,
  CONTENT_CHECK_KIND_LABELS,
  CONTENT_CHECK_LEVEL_LABELS,
  USABILITY_KINDS,
} from '../messages/review.js';

import { pageParam, pageSizeParam } from './paging.js';

/**
 * The extensions the settings page offers as checkboxes. An admin may also allow any other
 * well-formed extension, except the forbidden ones (executables, installers, server-side scripts).
 */
export const KNOWN_EXTENSIONS: readonly string[] = WEB_FILE_TYPES;

const GB = 1024 * MB;

/** The bounds of each setting (inclusive). */
export const CONFIG_BOUNDS = {
  max_files_per_upload: { min: 1, max: 10_000 },
  max_file_bytes: { min: 1024, max: 10 * GB },
  max_upload_bytes: { min: 1024, max: 20 * GB },
  max_archive_entries: { min: 1, max: 100_000 },
  max_archive_uncompressed_bytes: { min: MB, max: 50 * GB },
  preview_ttl_seconds: { min: 60, max: 7 * 24 * 3600 },
  max_user_storage_bytes: USER_STORAGE_BOUNDS,
  /** 0 = no limit. */
  max_uploads_per_hour: { min: 0, max: 10_000 },
  /** Renders at once on each instance (docs/render.md). */
  render_concurrency: { min: 1, max: 8 },
  /** Pages a Chromium renders before it is restarted. */
  render_pages_per_browser: { min: 1, max: 1_000 },
} as const;

const bounded = (field: keyof typeof CONFIG_BOUNDS) => {
  const { min, max } = CONFIG_BOUNDS[field];
  const error = format(m.configRange, { field: m.configFields[field], min, max });
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error }).optional();
};

/** PUT /api/admin/config: any subset of the settings; what is left out keeps its value. */
export const adminConfigBody = z
  .object({
    max_files_per_upload: bounded('max_files_per_upload'),
    max_file_bytes: bounded('max_file_bytes'),
    max_upload_bytes: bounded('max_upload_bytes'),
    max_archive_entries: bounded('max_archive_entries'),
    max_archive_uncompressed_bytes: bounded('max_archive_uncompressed_bytes'),
    allowed_extensions: z
      .array(
        z
          .string({ error: m.configExtensionsRequired })
          .trim()
          .toLowerCase()
          .transform((s) => s.replace(/^\./, '')),
        { error: m.configExtensionsRequired },
      )
      .min(1, { error: m.configExtensionsRequired })
      .max(100, { error: m.configExtensionsRequired })
      .superRefine((list, ctx) => {
        const malformed = list.find((e) => !EXTENSION_PATTERN.test(e));
        if (malformed !== undefined) {
          ctx.addIssue({ code: 'custom', message: format(m.configExtensionInvalid, { ext: malformed }) });
          return;
        }
        const forbidden = list.find((e) => FORBIDDEN_EXTENSIONS.includes(e));
        if (forbidden !== undefined) {
          ctx.addIssue({ code: 'custom', message: format(m.configExtensionUnknown, { ext: forbidden }) });
        }
      })
      .transform((list) => [...new Set(list)])
      .optional(),
    unknown_file_types: z.enum(UNKNOWN_FILE_TYPE_MODES, { error: m.configUnknownTypesInvalid }).optional(),
    preview_ttl_seconds: bounded('preview_ttl_seconds'),
    max_user_storage_bytes: bounded('max_user_storage_bytes'),
    max_uploads_per_hour: bounded('max_uploads_per_hour'),
    render_concurrency: bounded('render_concurrency'),
    render_pages_per_browser: bounded('render_pages_per_browser'),
    render_allow_public_assets: z.boolean({ error: m.configBooleanInvalid }).optional(),
  })
  .strict();
export type AdminConfigBody = z.input<typeof adminConfigBody>;
export type AdminConfigChange = z.output<typeof adminConfigBody>;

/** Empty query parameters (a cleared filter box) mean no filter. */
const filterText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, { error: m.auditFilterInvalid })
    .regex(NO_CONTROL_CHARS, { error: m.auditFilterInvalid })
    .optional()
    .transform((v) => v || undefined);

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
/** Date.parse rolls a day past the month's end over ("2024-02-30" is 1 March): refuse those. */
function realDay(day: string): boolean {
  const t = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day;
}

const isoTime = z
  .string()
  .trim()
  .optional()
  .transform((v) => v || undefined)
  .refine(
    (v) =>
      v === undefined ||
      ((DATE_ONLY.test(v) || DATE_TIME.test(v)) && !Number.isNaN(Date.parse(v)) && realDay(v.slice(0, 10))),
    {
      error: m.auditTimeInvalid,
    },
  );

/**
 * GET /api/admin/audit-logs. actor: part of the actor's username (any case); action: one action
 * ('review.approve') or a group ('review'); from/to: ISO 8601, a date alone is a whole UTC day.
 */
export const auditLogQuery = z.object({
  page: pageParam,
  page_size: pageSizeParam(100, 20),
  actor: filterText(64),
  actor_id: z.coerce.number().int().positive().max(ID_MAX).optional(),
  action: filterText(64),
  target_type: filterText(32),
  target_id: filterText(64),
  ip: filterText(64),
  from: isoTime,
  to: isoTime,
});
export type AuditLogQuery = z.input<typeof auditLogQuery>;
export type AuditLogFilters = z.output<typeof auditLogQuery>;

/** GET /api/admin/projects/pending: oldest first; the dashboard asks for 5. */
export const pendingProjectsQuery = z.object({
  page: pageParam,
  page_size: pageSizeParam(50, 5),
});
export type PendingProjectsQuery = z.input<typeof pendingProjectsQuery>;
