import { z } from 'zod';
import { DESCRIPTION_MAX, PROJECT_NAME_MAX, PROJECT_NAME_MIN } from '../limits.js';
import { projectMessages as m } from '../messages/projects.js';
import { SHOWCASE_SORTS } from '../showcase.js';
import { UPLOAD_TYPES } from '../statuses.js';
import { searchParam } from './auth.js';
import { drawsAsStored } from './look-alike.js';
import { pageParam, pageSizeParam } from './paging.js';
import { siteName } from './site-names.js';

/**
 * Characters a description must not hold: controls but line breaks and tabs (a NUL can't even be
 * stored in PostgreSQL text) and the bidirectional overrides and isolates that make text read
 * otherwise than it is stored. A name is held to more (schemas/look-alike.ts).
 */
const HIDDEN_CONTROLS_BUT_LINES =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const projectName = z
  .string({ error: m.nameRequired })
  .trim()
  .min(1, { error: m.nameRequired })
  .min(PROJECT_NAME_MIN, { error: m.nameTooShort })
  .max(PROJECT_NAME_MAX, { error: m.nameTooLong })
  .refine(drawsAsStored, { error: m.nameInvalid });

export const projectDescription = z
  .string()
  .trim()
  .max(DESCRIPTION_MAX, { error: m.descriptionTooLong })
  .refine((v) => !HIDDEN_CONTROLS_BUT_LINES.test(v), { error: m.descriptionInvalid });

/** The text fields of the multipart upload (docs/product.md "Uploads"). */
/** A switch sent as a multipart field: `true` or `false`. */
const multipartSwitch = z
  .enum(['true', 'false'], { error: m.switchInvalid })
  .transform((v) => v === 'true')
  .optional();

export const uploadFields = z
  .object({
    project_name: projectName,
    description: projectDescription.optional().default(''),
    /** The site's name (schemas/site-names.ts); without one the site is reached by its number. */
    site_name: siteName.optional(),
    /** The SPA fallback (docs/product.md "A site's own routing"), set with the upload. */
    spa_fallback: multipartSwitch,
    upload_type: z.enum(UPLOAD_TYPES, { error: m.uploadTypeInvalid }).optional().default('auto'),
  })
  // Another field (is_public, say) is refused as the JSON routes refuse it, not dropped: the
  // uploader would think it applied.
  .strict();
export type UploadFields = z.infer<typeof uploadFields>;

/** The fields of a new version upload (PUT multipart): name and description may change too. */
export const versionFields = z
  .object({
    project_name: projectName.optional(),
    description: projectDescription.optional(),
    site_name: siteName.optional(),
    spa_fallback: multipartSwitch,
    upload_type: z.enum(UPLOAD_TYPES, { error: m.uploadTypeInvalid }).optional().default('auto'),
  })
  .strict();

export const updateProjectBody = z
  .object({
    project_name: projectName.optional(),
    name: projectName.optional(),
    description: projectDescription.nullable().optional(),
    is_public: z.boolean().optional(),
    /** A new name for the site: the old one leads to it for SITE_NAME_HOLD_DAYS. */
    site_name: siteName.optional(),
    /** The site's routing switches (docs/product.md "A site's own routing"). */
    spa_fallback: z.boolean().optional(),
    clean_urls: z.boolean().optional(),
  })
  .strict();
export type UpdateProjectBody = z.input<typeof updateProjectBody>;

/**
 * DELETE /api/projects/{id}: an admin deleting another account's project may say why; the owner
 * reads it as 原因 in the `deleted` notice (docs/notifications.md), as with the batch's data.comment.
 * No body at all is the owner's own delete, or an admin's without a reason.
 */
export const deleteProjectBody = z.object({
  comment: z
    .string({ error: m.deleteReasonInvalid })
    .trim()
    .max(1000, { error: m.deleteReasonTooLong })
    .optional()
    .describe('删除原因（选填，最多 1000 字）：管理员删除他人项目时，所有者会在删除通知中看到'),
});
export type DeleteProjectBody = z.input<typeof deleteProjectBody>;

export const OWNER_FILTERS = ['all', 'pending', 'approved', 'rejected', 'taken_down'] as const;
export type OwnerFilter = (typeof OWNER_FILTERS)[number];

export const myProjectsQuery = z.object({
  status: z.enum(OWNER_FILTERS).optional().default('all'),
  page: pageParam,
  page_size: pageSizeParam(100, 24),
});
export type MyProjectsQuery = z.input<typeof myProjectsQuery>;

export const showcaseQuery = z.object({
  search: searchParam,
  sort: z.enum(SHOWCASE_SORTS).optional().default('latest'),
  featured: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1'),
  page: pageParam,
  page_size: pageSizeParam(60, 12),
});
export type ShowcaseQuery = z.input<typeof showcaseQuery>;
