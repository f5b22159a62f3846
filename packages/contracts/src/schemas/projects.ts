import { z } from 'zod';
import { DESCRIPTION_MAX, PROJECT_NAME_MAX, PROJECT_NAME_MIN } from '../limits.js';
import { projectMessages as m } from '../messages/projects.js';
import { SHOWCASE_SORTS } from '../showcase.js';
import { UPLOAD_TYPES } from '../statuses.js';
import { searchParam } from './auth.js';
import { pageParam, pageSizeParam } from './paging.js';

/**
 * Characters a name or description must not hold: controls (a NUL can't even be stored in
 * PostgreSQL text) and the bidirectional overrides and isolates that make text read otherwise than
 * it is stored ("abc\u202Egpj.exe" shows as "abcexe.jpg").
 */
const HIDDEN_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** The same, but a description may run over several lines. */
const HIDDEN_CONTROLS_BUT_LINES =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** Blanks and invisible format characters (zero-width space, joiners, marks): not a name. */
const INVISIBLE = /[\s\p{Cf}]/gu;

export const projectName = z
  .string({ error: m.nameRequired })
  .trim()
  .min(1, { error: m.nameRequired })
  .min(PROJECT_NAME_MIN, { error: m.nameTooShort })
  .max(PROJECT_NAME_MAX, { error: m.nameTooLong })
  .refine((v) => !HIDDEN_CONTROLS.test(v), { error: m.nameInvalid })
  .refine((v) => v === '' || v.replace(INVISIBLE, '') !== '', { error: m.nameRequired });

export const projectDescription = z
  .string()
  .trim()
  .max(DESCRIPTION_MAX, { error: m.descriptionTooLong })
  .refine((v) => !HIDDEN_CONTROLS_BUT_LINES.test(v), { error: m.descriptionInvalid });

/** The text fields of the multipart upload (docs/product.md "Uploads"). */
export const uploadFields = z.object({
  project_name: projectName,
  description: projectDescription.optional().default(''),
  upload_type: z.enum(UPLOAD_TYPES, { error: m.uploadTypeInvalid }).optional().default('auto'),
});
export type UploadFields = z.infer<typeof uploadFields>;

/** The fields of a new version upload (PUT multipart): name and description may change too. */
export const versionFields = z.object({
  project_name: projectName.optional(),
  description: projectDescription.optional(),
  upload_type: z.enum(UPLOAD_TYPES, { error: m.uploadTypeInvalid }).optional().default('auto'),
});

export const updateProjectBody = z
  .object({
    project_name: projectName.optional(),
    name: projectName.optional(),
    description: projectDescription.nullable().optional(),
    is_public: z.boolean().optional(),
  })
  .strict();
export type UpdateProjectBody = z.input<typeof updateProjectBody>;

export const OWNER_FILTERS = ['all', 'pending', 'approved', 'rejected'] as const;
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
