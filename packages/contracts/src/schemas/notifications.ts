/**
 * Notices (the bell and its page, docs/notifications.md) and a site's analytics for its owner: the
 * kinds, the DTOs and the queries, shared by server and web app.
 */
import { z } from 'zod';
import { pageParam, pageSizeParam } from './paging.js';

/**
 * What a notice is about. Owners: approved (a first version went live), version_live (a newer
 * version replaced the live one), rejected and taken_down (with the reason), rolled_back (someone
 * else made an earlier version live). Admins: upload_pending (one unread notice per project, its
 * newest version: docs/notifications.md "Not flooding admins").
 */
export const NOTIFICATION_KINDS = [
  'approved',
  'version_live',
  'rejected',
  'taken_down',
  'rolled_back',
  'upload_pending',
  'deleted',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** The notice's title, {name} the project's name and {version} the version. */
export const NOTIFICATION_TITLES: Record<NotificationKind, string> = {
  approved: '「{name}」审核通过，已上线',
  version_live: '「{name}」第 {version} 版审核通过，已上线',
  rejected: '「{name}」第 {version} 版未通过审核',
  taken_down: '「{name}」已被管理员下线',
  rolled_back: '「{name}」已回滚到第 {version} 版',
  upload_pending: '「{name}」第 {version} 版等待审核',
  deleted: '「{name}」已被管理员删除',
};

/**
 * What a notice's text is: why a version was refused or a site taken down (原因), or what the
 * reviewer wrote when approving (审核意见).
 */
export const NOTIFICATION_REASON_LABELS: Record<NotificationKind, string> = {
  approved: '审核意见',
  version_live: '审核意见',
  rejected: '原因',
  taken_down: '原因',
  rolled_back: '原因',
  upload_pending: '原因',
  deleted: '原因',
};

const dateTime = z.string().describe('ISO 8601 时间');

export const notificationDto = z.object({
  id: z.number().int(),
  kind: z.enum(NOTIFICATION_KINDS),
  title: z.string(),
  reason: z.string().nullable().describe('驳回或下线的原因，或通过时的审核意见'),
  project_id: z.number().int().nullable(),
  project_name: z.string(),
  version: z.number().int().nullable(),
  /** Where the notice leads in the web app (the owner's project page, or the review page). */
  link: z.string().nullable(),
  read: z.boolean(),
  created_at: dateTime,
});
export type NotificationDto = z.output<typeof notificationDto>;

export const notificationsQuery = z.object({
  page: pageParam,
  page_size: pageSizeParam(100, 20),
  unread: z
    .enum(['1', 'true'])
    .optional()
    .transform((v) => v !== undefined),
});

export const notificationListData = z.object({
  notifications: z.array(notificationDto),
  unread_count: z.number().int(),
  pagination: z.object({
    current_page: z.number().int(),
    total_pages: z.number().int(),
    total_count: z.number().int(),
    page_size: z.number().int(),
  }),
});
export type NotificationListData = z.output<typeof notificationListData>;
export const unreadCountData = z.object({ unread_count: z.number().int() });
export const markedReadData = z.object({ marked: z.number().int() });

/* ---- A site's analytics for its owner (counted without cookies or addresses). ---- */

/** Days of analytics the owner's project page shows. */
export const ANALYTICS_DAYS = 30;
/** Rows of top pages and referring hosts shown. */
export const ANALYTICS_TOP = 10;

export const projectAnalyticsData = z.object({
  days: z.array(
    z.object({
      day: z.string().describe('UTC 日期 YYYY-MM-DD'),
      views: z.number().int().describe('访问量（同一访客 30 分钟内计一次）'),
      bytes: z.number().describe('当天发送的字节数'),
    }),
  ),
  top_pages: z.array(z.object({ path: z.string(), views: z.number().int() })),
  referrers: z.array(z.object({ host: z.string(), views: z.number().int() })),
  total_views: z.number().int(),
  total_bytes: z.number(),
});
export type ProjectAnalyticsData = z.output<typeof projectAnalyticsData>;
