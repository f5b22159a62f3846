import { z } from 'zod';
import { BATCH_MAX_PROJECTS, ID_MAX } from '../limits.js';
import { reviewMessages as m } from '../messages/review.js';
import { BATCH_ACTIONS, PROJECT_STATUSES, REVIEW_ACTIONS } from '../statuses.js';
import { searchParam } from './auth.js';
import { pageParam, pageSizeParam } from './paging.js';

const comment = z.string().trim().max(1000, { error: m.commentTooLong }).optional();

/** A version number (待审 vN) as the reviewer saw it. */
const versionNumber = z
  .number({ error: m.versionInvalid })
  .int({ error: m.versionInvalid })
  .min(1, { error: m.versionInvalid })
  .max(ID_MAX, { error: m.versionInvalid });

/** POST /api/admin/projects/{id}/review (docs/product.md "Statuses and transitions"). */
export const reviewBody = z.object({
  action: z.enum(REVIEW_ACTIONS, { error: m.statusRequired }),
  comment,
  /**
   * The newest version as the reviewer saw it: an approval or rejection then applies only while it
   * is still the newest, else 409 (docs/decisions/review.md "A decision names its version").
   */
  version: versionNumber
    .optional()
    .describe('审核时看到的最新版本号（待审 vN）：通过、拒绝只在它仍是最新版本时执行'),
});
export type ReviewBody = z.input<typeof reviewBody>;

/** POST /api/admin/projects/batch */
export const batchBody = z.object({
  projectIds: z
    .array(
      z
        .number({ error: m.batchIdsInvalid })
        .int({ error: m.batchIdsInvalid })
        .min(1, { error: m.batchIdsInvalid })
        .max(ID_MAX, { error: m.batchIdsInvalid }),
      { error: m.batchSize },
    )
    .min(1, { error: m.batchSize })
    .max(BATCH_MAX_PROJECTS, { error: m.batchSize }),
  action: z.enum(BATCH_ACTIONS, { error: m.statusRequired }),
  data: z
    .object({
      comment,
      /** Each project's newest version as the reviewer saw it (project id → version), as `version` above. */
      versions: z
        .record(z.string().regex(/^[1-9][0-9]{0,15}$/, { error: m.batchIdsInvalid }), versionNumber)
        .optional(),
    })
    .optional()
    .default({}),
});
export type BatchBody = z.input<typeof batchBody>;

/** A version, by the id its project's version history (`deployments[].id`) gives it. */
const deploymentId = <T extends z.ZodNumber | z.ZodCoercedNumber>(n: T) =>
  n
    .int({ error: m.deploymentIdInvalid })
    .min(1, { error: m.deploymentIdInvalid })
    .max(ID_MAX, { error: m.deploymentIdInvalid })
    .describe('版本 id（版本记录 deployments[].id）');

export const rollbackBody = z.object({
  deployment_id: deploymentId(z.number({ error: m.deploymentIdInvalid })),
});

/**
 * GET /api/projects/{id}/download and /api/admin/projects/{id}/download: `deployment_id` sends that
 * version's files; without it, the live version, else the newest (docs/decisions/uploads.md
 * "Download").
 */
export const downloadQuery = z.object({
  // Decimal digits only, no leading zero: `Number()` would also take `01`, `0x1`, `1e0`, `1.0` and ` 1`.
  deployment_id: z
    .preprocess(
      (v) => (typeof v === 'string' && !/^[1-9][0-9]{0,15}$/.test(v) ? Number.NaN : v),
      deploymentId(z.coerce.number({ error: m.deploymentIdInvalid })),
    )
    .optional(),
});
export type DownloadQuery = z.input<typeof downloadQuery>;

/** The admin lists' tabs; `approved` (已发布) holds the featured ones too (statusesOfFilter). */
export const ADMIN_TABS = ['all', ...PROJECT_STATUSES] as const;
export type AdminTab = (typeof ADMIN_TABS)[number];

/** GET /api/admin/projects/{id}/source: a text file of the newest version, around a line. */
export const adminSourceQuery = z.object({
  path: z
    .string({ error: m.contentCheck.sourcePathRequired })
    .min(1, m.contentCheck.sourcePathRequired)
    .max(1000),
  line: z.coerce
    .number({ error: m.contentCheck.sourceLineInvalid })
    .int(m.contentCheck.sourceLineInvalid)
    .min(1, m.contentCheck.sourceLineInvalid)
    .max(10_000_000, m.contentCheck.sourceLineInvalid)
    .optional(),
});
export type AdminSourceQuery = z.input<typeof adminSourceQuery>;

/** GET /api/admin/projects/{id}/file-diff: one file of the live and the newest version. */
export const adminFileDiffQuery = z.object({
  path: z
    .string({ error: m.contentCheck.sourcePathRequired })
    .min(1, m.contentCheck.sourcePathRequired)
    .max(1000),
});
export type AdminFileDiffQuery = z.input<typeof adminFileDiffQuery>;

/** The review list's orders: by upload time, or by risk (highest first, then newest). */
export const ADMIN_SORTS = ['newest', 'oldest', 'risk'] as const;
export const CONTENT_RISK_FILTERS = ['high', 'medium', 'low', 'info', 'clean', 'unchecked'] as const;

/** GET /api/admin/projects: a tab, a search over name, description and owner, a page. */
export const adminProjectsQuery = z.object({
  status: z.enum(ADMIN_TABS).optional().default('all'),
  search: searchParam.transform((v) => v || undefined),
  page: pageParam,
  page_size: pageSizeParam(100, 10),
  sort: z.enum(ADMIN_SORTS).optional().default('newest'),
  /** Only projects whose newest version's check is at this risk level (or was never checked). */
  risk: z.enum(CONTENT_RISK_FILTERS).optional(),
});
export type AdminProjectsQuery = z.input<typeof adminProjectsQuery>;
export type AdminProjectsFilters = z.output<typeof adminProjectsQuery>;
