/**
 * The server's half of the endpoint table: the Chinese summary, area, request and response schemas
 * of every endpoint of endpoints.ts, under the same key (the
 * `satisfies` below fails the typecheck when one table has a key the other lacks). `data` is the
 * schema of the success envelope's `data`; null for answers that are not the envelope (a zip, a
 * page). The server parses query and body with these; GET /api/openapi.json shows them.
 */
import { z } from 'zod';
import type { EndpointKey } from './endpoints.js';
import { adminConfigBody, auditLogQuery, pendingProjectsQuery } from './schemas/admin.js';
import { loginBody, registerBody, updateProfileBody, updateUserBody, userListQuery } from './schemas/auth.js';
import { createTokenBody, sha256Hex, startDeployBody } from './schemas/deploys.js';
import {
  addDomainBody,
  adminDomainsData,
  customDomainData,
  projectDomainsData,
  tlsAskQuery,
} from './schemas/domains.js';
import {
  markedReadData,
  notificationListData,
  notificationsQuery,
  projectAnalyticsData,
  unreadCountData,
} from './schemas/notifications.js';
import {
  deleteProjectBody,
  myProjectsQuery,
  showcaseQuery,
  updateProjectBody,
  uploadFields,
  versionFields,
} from './schemas/projects.js';
import {
  adminConfigData,
  adminFileDiffData,
  adminProjectDetailData,
  adminProjectListData,
  adminSourceData,
  adminStatsDto,
  adminUserListData,
  apiTokenListData,
  auditLogListData,
  authData,
  batchResultData,
  createdApiTokenData,
  myProjectsData,
  noData,
  passwordData,
  pendingProjectsData,
  previewTokenDto,
  projectData,
  publicConfigDto,
  rerenderData,
  showcaseData,
  siteNameData,
  startedDeployData,
  userData,
} from './schemas/responses.js';
import {
  adminFileDiffQuery,
  adminProjectsQuery,
  adminSourceQuery,
  batchBody,
  downloadQuery,
  reviewBody,
  rollbackBody,
} from './schemas/review.js';
import { siteNameQuery } from './schemas/site-names.js';

/** A positive id in the path (anything else is answered as a missing resource, 404). */
export const idPathParams = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/)
    .describe('正整数 id'),
});

export interface EndpointSchemas {
  /** The area it belongs to (the OpenAPI tag). */
  tag: string;
  /** What it does, in Chinese (the OpenAPI summary). */
  summary: string;
  params?: z.ZodType;
  query?: z.ZodType;
  /** The JSON body. */
  body?: z.ZodType;
  /** The text fields of a multipart body (the files come as `files`). */
  multipart?: z.ZodType;
  data: z.ZodType | null;
}

const id = { params: idPathParams };
/** A project's id and one of its custom domains' id. */
const domainParams = idPathParams.extend({ domainId: idPathParams.shape.id });
/** A deploy's id (random, not a number) and, for a file, the content's SHA-256. */
const deployId = { params: z.object({ id: z.string().describe('部署 id') }) };
const deployFileParams = {
  params: z.object({ id: z.string().describe('部署 id'), sha256: sha256Hex.describe('文件内容的 SHA-256') }),
};

export const endpointSchemas = {
  login: { tag: '账号', summary: '登录', body: loginBody, data: authData },
  logout: { tag: '账号', summary: '退出登录', data: noData },
  refresh: { tag: '账号', summary: '续期会话', data: authData },
  profile: { tag: '账号', summary: '当前用户资料', data: userData },
  updateProfile: { tag: '账号', summary: '修改资料或密码', body: updateProfileBody, data: userData },
  register: { tag: '账号', summary: '创建用户（返回初始密码）', body: registerBody, data: passwordData },
  apiTokens: { tag: 'API 令牌', summary: '我的 API 令牌', data: apiTokenListData },
  createApiToken: {
    tag: 'API 令牌',
    summary: '创建 API 令牌（令牌只在这次回答中出现；令牌不能调用此接口）',
    body: createTokenBody,
    data: createdApiTokenData,
  },
  revokeApiToken: { tag: 'API 令牌', summary: '撤销 API 令牌', ...id, data: noData },

  startDeploy: {
    tag: '部署',
    summary:
      '开始摘要部署：提交 路径→SHA-256 清单，或已有版本（base_version、base_digest）之上的改动 changes，返回服务器缺少的内容',
    body: startDeployBody,
    data: startedDeployData,
  },
  deployFile: {
    tag: '部署',
    summary: '上传一个缺少的文件内容（请求体即文件原始字节）',
    ...deployFileParams,
    data: noData,
  },
  deployFiles: {
    tag: '部署',
    summary: '一次上传多个缺少的文件内容（multipart：每一部分是一个文件，字段名为其 SHA-256）',
    ...deployId,
    data: noData,
  },
  finishDeploy: {
    tag: '部署',
    summary: '完成部署：生成待审核的新版本',
    ...deployId,
    data: projectData,
  },
  cancelDeploy: {
    tag: '部署',
    summary: '取消未完成的部署：已上传的内容不再计入存储空间，也不再占用未完成部署的名额',
    ...deployId,
    data: noData,
  },

  users: { tag: '用户管理', summary: '用户列表', query: userListQuery, data: adminUserListData },
  updateUser: {
    tag: '用户管理',
    summary: '修改用户（角色、停用、存储配额）',
    ...id,
    body: updateUserBody,
    data: userData,
  },
  resetPassword: { tag: '用户管理', summary: '重置密码（返回新密码）', ...id, data: passwordData },
  deleteUser: { tag: '用户管理', summary: '删除用户', ...id, data: noData },
  unlockUser: { tag: '用户管理', summary: '解除登录锁定（连续密码错误后）', ...id, data: userData },
  userApiTokens: { tag: '用户管理', summary: '用户的 API 令牌', ...id, data: apiTokenListData },
  revokeUserApiToken: {
    tag: '用户管理',
    summary: '撤销用户的 API 令牌',
    params: idPathParams.extend({ tokenId: idPathParams.shape.id }),
    data: noData,
  },

  publicConfig: { tag: '配置', summary: '上传限制与允许的文件类型', data: publicConfigDto },
  showcase: { tag: '展厅', summary: '展厅项目列表', query: showcaseQuery, data: showcaseData },

  upload: {
    tag: '我的项目',
    summary: '上传新项目（multipart：文件或压缩包）',
    multipart: uploadFields,
    data: projectData,
  },
  myProjects: { tag: '我的项目', summary: '我的项目与统计', query: myProjectsQuery, data: myProjectsData },
  siteName: {
    tag: '我的项目',
    summary: '检查站点名是否可用（name），或由项目名称推荐一个可用的站点名（from）',
    query: siteNameQuery,
    data: siteNameData,
  },
  project: { tag: '我的项目', summary: '项目详情', ...id, data: projectData },
  updateProject: {
    tag: '我的项目',
    summary: '修改项目信息（JSON），或上传新版本（multipart）',
    ...id,
    body: updateProjectBody,
    multipart: versionFields,
    data: projectData,
  },
  deleteProject: {
    tag: '我的项目',
    summary: '删除项目（管理员删除他人项目时可附删除原因 comment，所有者会在通知中看到）',
    ...id,
    body: deleteProjectBody,
    data: noData,
  },
  rollback: {
    tag: '我的项目',
    summary: '回滚到已通过的旧版本',
    ...id,
    body: rollbackBody,
    data: projectData,
  },
  download: {
    tag: '我的项目',
    summary: '下载项目文件（zip）：线上版本（未上线时为最新版本），或 deployment_id 指定的版本',
    ...id,
    query: downloadQuery,
    data: null,
  },
  previewToken: { tag: '我的项目', summary: '生成预览链接', ...id, data: previewTokenDto },
  projectAnalytics: {
    tag: '我的项目',
    summary: '站点访问分析：每日访问、热门页面、来源网站、流量（不存访客地址）',
    ...id,
    data: projectAnalyticsData,
  },

  notifications: { tag: '通知', summary: '我的通知', query: notificationsQuery, data: notificationListData },
  unreadNotifications: { tag: '通知', summary: '未读通知数', data: unreadCountData },
  readNotification: { tag: '通知', summary: '标为已读', ...id, data: markedReadData },
  readAllNotifications: { tag: '通知', summary: '全部标为已读', data: markedReadData },

  adminProjects: {
    tag: '审核',
    summary: '项目列表（审核）',
    query: adminProjectsQuery,
    data: adminProjectListData,
  },
  pendingProjects: {
    tag: '审核',
    summary: '待审核项目',
    query: pendingProjectsQuery,
    data: pendingProjectsData,
  },
  adminProject: {
    tag: '审核',
    summary: '审核详情（内容检查、版本差异、访问统计）',
    ...id,
    data: adminProjectDetailData,
  },
  adminSource: {
    tag: '审核',
    summary: '查看最新版本的源文件片段',
    ...id,
    query: adminSourceQuery,
    data: adminSourceData,
  },
  adminFileDiff: {
    tag: '审核',
    summary: '比较线上版本与最新版本中的一个文本文件（逐行差异用）',
    ...id,
    query: adminFileDiffQuery,
    data: adminFileDiffData,
  },
  review: {
    tag: '审核',
    summary: '审核操作（通过、驳回、发布、下架…）',
    ...id,
    body: reviewBody,
    data: projectData,
  },
  rerenderProject: {
    tag: '审核',
    summary: '重新截图：再次渲染项目的最新版本（和线上版本）',
    ...id,
    data: rerenderData,
  },
  thumbnail: {
    tag: '展厅',
    summary: '版本截图（WebP）：公开项目的线上版本人人可见，其余仅所有者和管理员可见',
    params: z.object({
      name: z
        .string()
        .regex(/^[0-9a-f]{64}\.webp$/)
        .describe('{sha256}.webp'),
    }),
    data: null,
  },
  batch: { tag: '审核', summary: '批量操作', body: batchBody, data: batchResultData },
  adminDownload: {
    tag: '审核',
    summary:
      '下载项目文件（zip）：线上版本（未上线时为最新版本），或 deployment_id 指定的版本（如待审核的版本）',
    ...id,
    query: downloadQuery,
    data: null,
  },
  stats: { tag: '管理', summary: '仪表盘统计', data: adminStatsDto },
  auditLogs: { tag: '管理', summary: '操作日志', query: auditLogQuery, data: auditLogListData },
  adminConfig: { tag: '管理', summary: '平台设置', data: adminConfigData },
  updateAdminConfig: { tag: '管理', summary: '修改平台设置', body: adminConfigBody, data: adminConfigData },

  projectDomains: { tag: '自定义域名', summary: '项目的自定义域名', ...id, data: projectDomainsData },
  addProjectDomain: {
    tag: '自定义域名',
    summary: '为上线的项目添加自定义域名（返回验证用的 DNS 记录）',
    ...id,
    body: addDomainBody,
    data: customDomainData,
  },
  checkProjectDomain: {
    tag: '自定义域名',
    summary: '检查域名的 DNS 验证记录',
    params: domainParams,
    data: customDomainData,
  },
  removeProjectDomain: { tag: '自定义域名', summary: '删除自定义域名', params: domainParams, data: noData },
  adminDomains: { tag: '管理', summary: '所有自定义域名', data: adminDomainsData },
  approveDomain: { tag: '管理', summary: '批准自定义域名', ...id, data: customDomainData },
  removeDomain: { tag: '管理', summary: '删除自定义域名', ...id, data: noData },
  tlsAsk: {
    tag: '自定义域名',
    summary: 'TLS 证书许可（Caddy on_demand_tls 的 ask）：已生效的域名 200，其余一律 404',
    query: tlsAskQuery,
    data: noData,
  },

  openapi: { tag: '接口文档', summary: '本接口的 OpenAPI 3.1 描述', data: null },
  docs: { tag: '接口文档', summary: '接口文档页面', data: null },
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
