/** Review workflow and admin console. */
export const reviewMessages = {
  statusRequired: '请选择审核状态',
  reasonRequired: '拒绝项目时必须提供原因',
  commentTooLong: '审核意见不能超过1000个字符',
  batchSize: '请选择 1 到 100 个项目',
  batchIdsInvalid: '项目编号无效',
  quickRejectComment: '需要进一步修改',
  reviewDone: '审核完成',
  reviewFailed: '提交审核失败',
  actionFailed: '操作失败',
  approved: '项目已通过',
  rejected: '项目已拒绝',
  published: '项目已发布',
  unpublished: '已取消精选',
  takenDown: '项目已下线',
  /** {from} {action} */
  transitionNotAllowed: '当前状态（{from}）不能执行此操作（{action}）',
  adminDataFailed: '获取数据失败',
  reviewListFailed: '获取项目列表失败',
  reviewDetailFailed: '获取项目信息失败',
  configSaved: '设置已保存',
  configInvalid: '设置无效',
  /** {field} {min} {max}: a setting outside its range. */
  configRange: '{field}必须是 {min} 到 {max} 之间的整数',
  configExtensionsRequired: '至少需要允许一种文件类型',
  /** {ext}: an executable, installer or server-side script type. */
  configExtensionUnknown: '不能允许文件类型 .{ext}：可执行文件、安装程序和服务器端脚本不能上传',
  /** {ext} */
  configExtensionInvalid: '文件类型“{ext}”无效：扩展名只能包含小写字母、数字和 - _ +，最长 16 个字符',
  configUnknownTypesInvalid: '请选择其他类型文件的处理方式',
  /** The choices for files of other types (settings page, audit log). */
  unknownFileTypeLabels: {
    download: '保存，仅供下载（不作为网页内容）',
    skip: '跳过，不保存',
    refuse: '拒绝整个上传',
  },
  configFileOverUpload: '单个文件大小不能超过单次上传总大小',
  rollbackDone: '已回滚到所选版本',
  rollbackNotAllowed: '只能回滚到已通过审核的历史版本',
  rollbackOffline: '项目当前未上线，不能回滚版本',
  deploymentIdInvalid: '版本编号无效',
  rollbackAlreadyLive: '所选版本已是线上版本',
  deploymentNotFound: '版本不存在',
  auditFilterInvalid: '筛选条件不能包含控制字符',
  auditTimeInvalid: '时间格式无效，请使用 ISO 8601 格式（如 2024-05-01 或 2024-05-01T08:00:00Z）',
  /** Field names of the platform settings, as the settings screen and its errors name them. */
  configFields: {
    max_files_per_upload: '单次上传文件数',
    max_file_bytes: '单个文件大小（字节）',
    max_upload_bytes: '单次上传总大小（字节）',
    max_archive_entries: '压缩包条目数',
    max_archive_uncompressed_bytes: '压缩包解压后总大小（字节）',
    allowed_extensions: '允许的文件类型',
    unknown_file_types: '其他类型的文件',
    preview_ttl_seconds: '预览链接有效期（秒）',
    max_user_storage_bytes: '每个用户的存储空间（字节）',
    max_uploads_per_hour: '每个用户每小时上传次数',
  },
  /** The content check's findings (review detail) and its badge (review list). */
  contentCheck: {
    missingEntry: '未找到入口文件（index.html）：站点根地址无法打开',
    /** {url} */
    rootAbsolute:
      '以 / 开头的地址“{url}”在站点地址 /sites/项目编号/ 下会指向平台根目录而失效，请改为相对地址',
    /** {url} */
    missingFile: '引用的文件不在上传内容中：“{url}”，打开页面时会加载失败',
    /** {domain} */
    externalScript: '引用外部脚本：{domain}',
    /** {domain} */
    externalStylesheet: '引用外部样式表：{domain}',
    /** {domain} */
    externalFrame: '嵌入外部页面或内容：{domain}',
    passwordForm: '页面包含密码输入框：静态站点无法处理登录，可能是钓鱼页面',
    /** {domain} */
    passwordFormExternal: '表单收集密码并提交到外部域名 {domain}：疑似钓鱼',
    /** {domain} */
    externalForm: '表单提交到外部域名 {domain}',
    /** {domain} */
    metaRefresh: '页面自动跳转（meta refresh）到外部域名 {domain}',
    /** {domain} */
    scriptRedirect: '脚本将页面跳转到外部域名 {domain}',
    /** {fn} */
    evalBase64: '通过 {fn} 执行 base64 解码后的代码（混淆特征）',
    /** {fn} */
    evalEncodedString: '通过 {fn} 执行长编码字符串（混淆特征）',
    longBase64WithEval: '包含长 base64 数据并调用 eval/Function（混淆特征）',
    packer: '代码经过 packer 打包混淆（eval(function(p,a,c,k,e,…)）',
    documentWriteUnescape: '使用 document.write(unescape(…)) 输出编码内容（混淆特征）',
    charCodes: '使用大量 String.fromCharCode 拼接字符（混淆特征）',
    hexEscapes: '包含长串十六进制转义字符（混淆特征）',
    /** {name} */
    cryptoMiner: '发现已知挖矿脚本特征：{name}',
    /** {ext} */
    htmlInOtherType: '文件扩展名为 .{ext}，内容却是 HTML 页面',
    /** {ext} */
    invalidJson: '文件扩展名为 .{ext}，内容不是有效的 JSON',
    /** {ext} */
    notHtml: '文件扩展名为 .{ext}，内容不像 HTML',
    svgScript: 'SVG 图片中包含脚本',
    /** {size} */
    largeFile: '文件较大（{size}），可能影响加载速度',
    notChecked: '未检查',
  },
} as const;

export const CONTENT_CHECK_LEVEL_LABELS = {
  high: '高风险',
  medium: '中风险',
  low: '低风险',
  info: '提示',
  clean: '未发现问题',
} as const;

export const CONTENT_CHECK_KIND_LABELS = {
  missing_entry: '缺少入口文件',
  root_absolute_link: '根路径链接',
  missing_file: '引用的文件缺失',
  external_script: '外部脚本',
  external_stylesheet: '外部样式表',
  external_frame: '外部嵌入',
  password_form: '密码表单',
  external_form: '外部表单',
  redirect: '跳转到外部',
  obfuscation: '代码混淆',
  crypto_miner: '挖矿脚本',
  type_mismatch: '内容与扩展名不符',
  svg_script: 'SVG 脚本',
  large_file: '大文件',
} as const;

/** Chinese names of the audit log's actions (the audit log page and its filter). */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  'auth.login': '登录成功',
  'auth.login_failed': '登录失败',
  'auth.login_throttled': '登录被限流',
  'auth.login_disabled': '停用账号尝试登录',
  'auth.logout': '退出登录',
  'user.bootstrap_admin': '创建初始管理员',
  'user.create': '创建用户',
  'user.role_change': '修改角色',
  'user.disable': '停用用户',
  'user.enable': '启用用户',
  'user.email_change': '修改邮箱',
  'user.password_changed': '修改密码',
  'user.password_reset': '重置密码',
  'user.delete': '删除用户',
  'user.quota_change': '修改存储配额',
  'project.upload': '上传项目',
  'project.new_version': '上传新版本',
  'project.update': '修改项目信息',
  'project.delete': '删除项目',
  'project.download': '下载项目',
  'project.preview_link': '生成预览链接',
  'project.rollback': '回滚版本',
  'review.approve': '审核通过',
  'review.reject': '审核拒绝',
  'review.publish': '发布（精选）',
  'review.unpublish': '取消精选',
  'review.takedown': '下线',
  'config.update': '修改平台设置',
};

export const AUDIT_TARGET_LABELS: Record<string, string> = {
  user: '用户',
  project: '项目',
  config: '平台设置',
};
