/**
 * The request and response schemas of every endpoint of endpoints.ts, under the same key (the
 * `satisfies` below fails the typecheck when one table has a key the other lacks). `data` is the
 * schema of the success envelope's `data`; null for answers that are not the envelope (a zip, a
 * page). The server parses query and body with these; GET /api/openapi.json shows them.
 */
import { z } from 'zod';
import type { EndpointKey } from './endpoints.js';
import { adminConfigBody, auditLogQuery, pendingProjectsQuery } from './schemas/admin.js';
import { loginBody, registerBody, updateProfileBody, updateUserBody, userListQuery } from './schemas/auth.js';
import {
  myProjectsQuery,
  showcaseQuery,
  updateProjectBody,
  uploadFields,
  versionFields,
} from './schemas/projects.js';
import {
  adminConfigData,
  adminProjectDetailData,
  adminProjectListData,
  adminSourceData,
  adminStatsDto,
  adminUserListData,
  auditLogListData,
  authData,
  batchResultData,
  myProjectsData,
  noData,
  passwordData,
  pendingProjectsData,
  previewTokenDto,
  projectData,
  publicConfigDto,
  showcaseData,
  userData,
} from './schemas/responses.js';
import {
  adminProjectsQuery,
  adminSourceQuery,
  batchBody,
  reviewBody,
  rollbackBody,
} from './schemas/review.js';

/** A positive id in the path (anything else is answered as a missing resource, 404). */
export const idPathParams = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/)
    .describe('正整数 id'),
});

export interface EndpointSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  /** The JSON body. */
  body?: z.ZodType;
  /** The text fields of a multipart body (the files come as `files`). */
  multipart?: z.ZodType;
  data: z.ZodType | null;
}

const id = { params: idPathParams };

export const endpointSchemas = {
  login: { body: loginBody, data: authData },
  logout: { data: noData },
  refresh: { data: authData },
  profile: { data: userData },
  updateProfile: { body: updateProfileBody, data: userData },
  register: { body: registerBody, data: passwordData },

  users: { query: userListQuery, data: adminUserListData },
  updateUser: { ...id, body: updateUserBody, data: userData },
  resetPassword: { ...id, data: passwordData },
  deleteUser: { ...id, data: noData },

  publicConfig: { data: publicConfigDto },
  showcase: { query: showcaseQuery, data: showcaseData },

  upload: { multipart: uploadFields, data: projectData },
  myProjects: { query: myProjectsQuery, data: myProjectsData },
  project: { ...id, data: projectData },
  updateProject: { ...id, body: updateProjectBody, multipart: versionFields, data: projectData },
  deleteProject: { ...id, data: noData },
  rollback: { ...id, body: rollbackBody, data: projectData },
  download: { ...id, data: null },
  previewToken: { ...id, data: previewTokenDto },

  adminProjects: { query: adminProjectsQuery, data: adminProjectListData },
  pendingProjects: { query: pendingProjectsQuery, data: pendingProjectsData },
  adminProject: { ...id, data: adminProjectDetailData },
  adminSource: { ...id, query: adminSourceQuery, data: adminSourceData },
  review: { ...id, body: reviewBody, data: projectData },
  batch: { body: batchBody, data: batchResultData },
  adminDownload: { ...id, data: null },
  stats: { data: adminStatsDto },
  auditLogs: { query: auditLogQuery, data: auditLogListData },
  adminConfig: { data: adminConfigData },
  updateAdminConfig: { body: adminConfigBody, data: adminConfigData },

  openapi: { data: null },
  docs: { data: null },
} as const satisfies { [K in EndpointKey]: EndpointSchemas };

type SchemasOf<K extends EndpointKey> = (typeof endpointSchemas)[K];
type OutputOf<S> = S extends z.ZodType ? z.output<S> : never;
type InputOf<S> = S extends z.ZodType ? z.input<S> : undefined;

/** The success envelope's `data` of an endpoint. */
export type EndpointData<K extends EndpointKey> = OutputOf<SchemasOf<K>['data']>;
/** What a caller sends as the query (before defaults and coercion). */
export type EndpointQuery<K extends EndpointKey> =
  SchemasOf<K> extends { query: infer Q } ? InputOf<Q> : undefined;
/** What a caller sends as the JSON body. */
export type EndpointBody<K extends EndpointKey> =
  SchemasOf<K> extends { body: infer B } ? InputOf<B> : undefined;
/** The query and body as the server has them after parsing. */
export type ParsedQuery<K extends EndpointKey> =
  SchemasOf<K> extends { query: infer Q } ? OutputOf<Q> : undefined;
export type ParsedBody<K extends EndpointKey> =
  SchemasOf<K> extends { body: infer B } ? OutputOf<B> : undefined;
