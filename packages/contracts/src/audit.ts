/**
 * The audit log's actions, each written once: Chinese label, the kind of thing it is about, what
 * its detail holds, and whether it is a failure or a removal (shown in red). The server's audit
 * writer accepts only these keys; the audit page's labels and filter options derive from them.
 */

/** What an entry is about, with its Chinese name. */
export const AUDIT_TARGETS = {
  user: '用户',
  project: '项目',
  config: '平台设置',
} as const;
export type AuditTargetType = keyof typeof AUDIT_TARGETS;

/** Groups of actions, by the prefix the audit log's filter matches ('review' finds every review.*). */
export const AUDIT_ACTION_GROUPS = {
  auth: '登录',
  user: '用户',
  project: '项目',
  review: '审核',
  token: 'API 令牌',
  config: '设置',
} as const;
export type AuditActionGroup = keyof typeof AUDIT_ACTION_GROUPS;

interface AuditActionDescriptor {
  label: string;
  target: AuditTargetType;
  /** The keys of its detail object and what they hold; absent when it has none. */
  detail?: string;
  /** A failure or a removal (red on the audit page); a success of a review (green). */
  tone?: 'danger' | 'success';
}

export const AUDIT_ACTIONS = {
  'auth.login': { label: '登录成功', target: 'user', detail: 'remember: 是否记住登录' },
  'auth.login_failed': { label: '登录失败', target: 'user', detail: 'login: 输入的登录名', tone: 'danger' },
  'auth.login_throttled': {
    label: '登录被限流',
    target: 'user',
    detail: 'login: 输入的登录名',
    tone: 'danger',
  },
  'auth.login_disabled': { label: '停用账号尝试登录', target: 'user', tone: 'danger' },
  'auth.logout': { label: '退出登录', target: 'user' },
  'user.bootstrap_admin': { label: '创建初始管理员', target: 'user' },
  'user.create': { label: '创建用户', target: 'user', detail: 'username, role' },
  'user.role_change': { label: '修改角色', target: 'user', detail: 'from, to: 角色' },
  'user.disable': { label: '停用用户', target: 'user' },
  'user.enable': { label: '启用用户', target: 'user' },
  'user.email_change': { label: '修改邮箱', target: 'user' },
  'user.password_changed': { label: '修改密码', target: 'user', detail: 'tokens_revoked: 撤销的 API 令牌数' },
  'user.password_reset': {
    label: '重置密码',
    target: 'user',
    detail: "via: 'cli' 时由命令行重置; tokens_revoked: 撤销的 API 令牌数",
  },
  'user.unlock': { label: '解除登录锁定', target: 'user', detail: 'locked_until: 原锁定到' },
  'user.delete': { label: '删除用户', target: 'user', detail: 'username', tone: 'danger' },
  'user.quota_change': {
    label: '修改存储配额',
    target: 'user',
    detail: 'storage_quota_bytes: { from, to }，null 表示平台默认',
  },
  'project.upload': {
    label: '上传项目',
    target: 'project',
    detail: 'files, bytes, type: 上传类型或压缩包格式',
  },
  'project.new_version': { label: '上传新版本', target: 'project', detail: 'files, bytes' },
  'project.update': { label: '修改项目信息', target: 'project', detail: 'fields: 修改的字段' },
  'project.delete': { label: '删除项目', target: 'project', detail: 'name, owner', tone: 'danger' },
  'project.download': { label: '下载项目', target: 'project' },
  'project.preview_link': { label: '生成预览链接', target: 'project' },
  'project.rollback': { label: '回滚版本', target: 'project', detail: 'version: 回滚到的版本号' },
  'project.domain_add': { label: '添加自定义域名', target: 'project', detail: 'domain_id, domain' },
  'project.domain_verify': {
    label: '自定义域名验证通过',
    target: 'project',
    detail: 'domain_id, domain, by: txt 或 cname',
  },
  'project.domain_approve': { label: '批准自定义域名', target: 'project', detail: 'domain_id, domain' },
  'project.domain_remove': {
    label: '删除自定义域名',
    target: 'project',
    detail: 'domain_id, domain',
    tone: 'danger',
  },
  'review.approve': {
    label: '审核通过',
    target: 'project',
    detail: 'from, to: 状态; comment',
    tone: 'success',
  },
  'review.reject': {
    label: '审核拒绝',
    target: 'project',
    detail: 'from, to: 状态; comment',
    tone: 'danger',
  },
  'review.publish': { label: '发布（精选）', target: 'project', detail: 'from, to: 状态; comment' },
  'review.unpublish': { label: '取消精选', target: 'project', detail: 'from, to: 状态; comment' },
  'review.takedown': { label: '下线', target: 'project', detail: 'from, to: 状态; comment', tone: 'danger' },
  'token.create': { label: '创建 API 令牌', target: 'user', detail: 'token_id, name' },
  'token.revoke': { label: '撤销 API 令牌', target: 'user', detail: 'token_id', tone: 'danger' },
  'token.admin_revoke': {
    label: '管理员撤销 API 令牌',
    target: 'user',
    detail: 'token_id, name: 被撤销的令牌（目标是令牌的所有者）',
    tone: 'danger',
  },
  'config.update': {
    label: '修改平台设置',
    target: 'config',
    detail: '每个修改的设置（SETTINGS 的键）: { from, to }',
  },
} as const satisfies Record<`${AuditActionGroup}.${string}`, AuditActionDescriptor>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export const AUDIT_ACTION_KEYS = Object.keys(AUDIT_ACTIONS) as AuditAction[];

/** The actions about one kind of target (what the audit writer accepts with that target). */
export type AuditActionOn<T extends AuditTargetType> = {
  [A in AuditAction]: (typeof AUDIT_ACTIONS)[A]['target'] extends T ? A : never;
}[AuditAction];

export function auditActionOf(action: AuditAction): AuditActionDescriptor {
  return AUDIT_ACTIONS[action];
}

export function isAuditAction(action: string): action is AuditAction {
  return Object.hasOwn(AUDIT_ACTIONS, action);
}
