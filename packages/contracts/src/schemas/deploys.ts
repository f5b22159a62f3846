/**
 * API tokens and digest deploys: request schemas and response DTOs (docs/product.md "Deploy from
 * the command line").
 */
import { z } from 'zod';
import type { ProjectDto } from '../api.js';
import { ID_MAX } from '../limits.js';
import { deployMessages as m } from '../messages/deploys.js';
import { projectMessages } from '../messages/projects.js';
import { drawsAsStored } from './look-alike.js';
import { projectDescription, projectName } from './projects.js';
import { siteName } from './site-names.js';

/** Every API token starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const API_TOKEN_PREFIX = 'sht_';
/** Tokens an account may hold at once. */
export const API_TOKENS_MAX = 20;
export const TOKEN_NAME_MAX = 50;
/**
 * An unfinished deploy expires this long after it began or last received a file (the leftover
 * sweep then removes it and what it uploaded; docs/decisions/deploys.md "API tokens and digest deploys").
 */
export const DEPLOY_IDLE_MS = 10 * 60_000;
/** ...and at the latest this long after it began, however busy (within the sweep's lease hour). */
export const DEPLOY_MAX_AGE_MS = 45 * 60_000;
/** Unfinished deploys an account may have open at once. */
export const OPEN_DEPLOYS_MAX = 5;
/** Deploys an account may start within DEPLOY_STARTS_WINDOW_MS (refused or not). */
export const DEPLOY_STARTS_MAX = 20;
export const DEPLOY_STARTS_WINDOW_MS = 10 * 60_000;
/**
 * Files one batch (POST /api/deploys/{id}/files, a multipart body) may carry; its bytes are bound
 * by the deploy's upload size limit (docs/decisions/deploys.md "Batched file uploads").
 */
export const DEPLOY_BATCH_FILES_MAX = 1000;
/**
 * The largest start body (its manifest of path → SHA-256): 10,000 files of paths up to ~1.5 KB, or
 * 100,000 (the most the entry limit allows) of ~90 bytes. The API's other JSON bodies keep 1 MiB,
 * which a manifest of 10,000 paths of ~50 characters already passed (docs/decisions/deploys.md
 * "Digest deploys").
 */
export const DEPLOY_MANIFEST_MAX_BYTES = 16 * 1024 * 1024;
/** How much of a token its lists show: the prefix and this many characters of the secret. */
export const API_TOKEN_SHOWN_CHARS = 8;

const SHA256_HEX = /^[0-9a-f]{64}$/;

export const createTokenBody = z.object({
  name: z
    .string({ error: m.tokenNameRequired })
    .trim()
    .min(1, { error: m.tokenNameRequired })
    .max(TOKEN_NAME_MAX, { error: m.tokenNameTooLong })
    .refine(drawsAsStored, { error: m.tokenNameInvalid }),
});
export type CreateTokenBody = z.infer<typeof createTokenBody>;

export const sha256Hex = z.string({ error: m.hashInvalid }).regex(SHA256_HEX, { error: m.hashInvalid });

/**
 * Start a digest deploy: `project_id` for a new version of an existing project, or `project_name`
 * (and `description`) for a new project; `files` maps each path to its content's SHA-256. Or, for
 * an existing project, a base-version deploy (docs/decisions/deploys.md "Base-version deploys"):
 * `base_version` (the project's version number), `base_digest` (the SHA-256 of that version's
 * manifest as the client believes it, in contracts' `canonicalManifest` form) and `changes`, path
 * → SHA-256 for a new or changed file, null for a removed one: the new version is the base's files
 * with these changes.
 */
export const startDeployBody = z
  .object({
    // No project has an id past the columns' range (PostgreSQL refused such a value with a 500).
    project_id: z
      .number({ error: m.projectIdInvalid })
      .int({ error: m.projectIdInvalid })
      .positive({ error: m.projectIdInvalid })
      .max(ID_MAX, { error: projectMessages.notFound })
      .optional(),
    project_name: projectName.optional(),
    description: projectDescription.optional(),
    /** The site name, for a new project or a rename with the new version. */
    site_name: siteName.optional(),
    files: z
      .record(z.string(), z.string().regex(SHA256_HEX, { error: m.manifestInvalid }), {
        error: m.manifestRequired,
      })
      .optional(),
    base_version: z
      .number({ error: m.baseVersionInvalid })
      .int({ error: m.baseVersionInvalid })
      .positive({
        error: m.baseVersionInvalid,
      })
      .max(ID_MAX, { error: m.baseVersionInvalid })
      .optional(),
    base_digest: z
      .string({ error: m.baseDigestInvalid })
      .regex(SHA256_HEX, { error: m.baseDigestInvalid })
      .optional(),
    changes: z
      .record(z.string(), z.string().regex(SHA256_HEX, { error: m.changesInvalid }).nullable(), {
        error: m.changesInvalid,
      })
      .optional(),
  })
  .refine((b) => (b.project_id === undefined) !== (b.project_name === undefined), {
    error: m.deployTargetRequired,
    path: ['project_id'],
  })
  .refine((b) => b.base_version === undefined || b.project_id !== undefined, {
    error: m.baseNeedsProject,
    path: ['base_version'],
  })
  .refine(
    (b) =>
      b.files !== undefined
        ? b.base_version === undefined && b.base_digest === undefined && b.changes === undefined
        : b.base_version !== undefined && b.base_digest !== undefined && b.changes !== undefined,
    { error: m.manifestOrBase, path: ['files'] },
  )
  .refine((b) => b.files === undefined || Object.keys(b.files).length > 0, {
    error: m.manifestRequired,
    path: ['files'],
  });
export type StartDeployBody = z.infer<typeof startDeployBody>;

export interface ApiTokenDto {
  id: number;
  name: string;
  /** `sht_` and the next 8 characters, to tell tokens apart; null for tokens made before it was kept. */
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** POST /api/auth/tokens: the token itself appears only in this answer. */
export interface CreatedApiTokenDto {
  id: number;
  name: string;
  token: string;
}

export interface ApiTokenListDto {
  tokens: ApiTokenDto[];
}

/** POST /api/deploys: the contents the server does not hold yet. */
export interface StartedDeployDto {
  /** null when the files are exactly the project's newest version: nothing was opened. */
  deploy_id: string | null;
  required: string[];
  /** The newest version's number, when the deploy is unchanged (then there is nothing to send or finish). */
  unchanged_version?: number;
  /**
   * Present when the server takes several files per request (POST /api/deploys/{id}/files): the
   * most files one batch may carry. A client that finds none PUTs each file.
   */
  batch?: { max_files: number };
}

/** POST /api/deploys/{id}/finish: the project, as an upload answers. */
export interface FinishedDeployDto {
  project: ProjectDto;
}

/** Where the server offers the `sitehall` command as an npm package (not under /api). */
export const CLI_DOWNLOAD_PATH = '/cli/sitehall-cli.tgz';
