/** Admin console requests: platform settings, audit log and pending list queries. */
import { z } from 'zod';
import { EXTENSION_PATTERN, FORBIDDEN_EXTENSIONS, ID_MAX, WEB_FILE_TYPES } from '../limits.js';
import { reviewMessages as m } from '../messages/review.js';
import { format } from '../messages.js';
import {
  SETTING_KEYS,
  type SettingKey,
  type SettingsValues,
  settingNameWithUnit,
  settingOf,
} from '../settings.js';
import { NO_CONTROL_CHARS } from './auth.js';

import { pageParam, pageSizeParam } from './paging.js';

/**
 * The extensions the settings page offers as checkboxes. An admin may also allow any other
 * well-formed extension, except the forbidden ones (executables, installers, server-side scripts).
 */
export const KNOWN_EXTENSIONS: readonly string[] = WEB_FILE_TYPES;

const bounded = (key: SettingKey, { min, max }: { min: number; max: number }) => {
  const error = format(m.configRange, { field: settingNameWithUnit(key), min, max });
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/** The most file types the settings allow, counted without repeats. */
const ALLOWED_EXTENSIONS_MAX = 100;

const extensionList = z
  .array(
    z
      .string({ error: m.configExtensionsList })
      .trim()
      .toLowerCase()
      .transform((s) => s.replace(/^\./, '')),
    { error: m.configExtensionsList },
  )
  .min(1, { error: m.configExtensionsRequired })
  // A bound on the work before the list is read (repeats count here; the JSON body's size bounds it).
  .max(ALLOWED_EXTENSIONS_MAX * 10, {
    error: format(m.configExtensionsTooMany, { n: ALLOWED_EXTENSIONS_MAX }),
  })
  .superRefine((list, ctx) => {
    if (new Set(list).size > ALLOWED_EXTENSIONS_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: format(m.configExtensionsTooMany, { n: ALLOWED_EXTENSIONS_MAX }),
      });
      return;
    }
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
  .transform((list) => [...new Set(list)]);

/** One setting's schema, chosen by its type. */
function settingSchema(key: SettingKey): z.ZodType {
  const d = settingOf(key);
  switch (d.type) {
    case 'integer':
      return bounded(key, d);
    case 'enum':
      return z.enum(d.options as [string, ...string[]], { error: d.invalidMessage });
    case 'extensions':
      return extensionList;
    case 'boolean':
      return z.boolean({ error: d.invalidMessage });
  }
}

type ConfigShape = { [K in SettingKey]: z.ZodOptional<z.ZodType<SettingsValues[K], SettingsValues[K]>> };

/** PUT /api/admin/config: any subset of the settings; what is left out keeps its value. */
export const adminConfigBody = z
  .object(Object.fromEntries(SETTING_KEYS.map((key) => [key, settingSchema(key).optional()])) as ConfigShape)
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
/** A time of day without an offset: read as UTC, like a date alone (JavaScript would read it as the server's local time). */
const NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;
/** Date.parse rolls a day past the month's end over ("2024-02-30" is 1 March): refuse those. */
function realDay(day: string): boolean {
  const t = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day;
}

const isoTime = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v && NO_OFFSET.test(v) ? `${v}Z` : v || undefined))
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
 * ('review.approve') or a group ('review'); from/to: ISO 8601, a date alone is a whole UTC day and
 * a time without an offset is UTC.
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
