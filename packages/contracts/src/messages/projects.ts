/** Projects, uploads, ingest and the owner's screens. */
export const projectMessages = {
  nameRequired: '请输入项目名称',
  nameTooShort: '项目名称至少需要2个字符',
  nameTooLong: '项目名称不能超过50个字符',
  descriptionTooLong: '项目描述不能超过500个字符',
  nameInvalid: '项目名称不能包含控制字符、零宽字符或文字方向控制符等看不见的字符',
  descriptionInvalid: '项目描述不能包含控制字符或文字方向控制符',
  siteNameTooShort: '站点名至少需要3个字符',
  siteNameTooLong: '站点名不能超过40个字符',
  siteNameInvalid:
    '站点名只能包含小写字母、数字和连字符（-），须以字母开头，不能以连字符结尾或含连续的连字符',
  /** {name} */
  siteNameReserved: '站点名“{name}”是保留名称，请换一个',
  /** {name} */
  siteNameTaken: '站点名“{name}”已被使用，请换一个',
  /** {name} {other}: another site's name (or one it gave up less than 30 days ago) looks the same. */
  siteNameLookAlike: '站点名“{name}”与已有的站点名“{other}”看起来相同，请换一个',
  /** {name} {days} */
  siteNameHeld: '站点名“{name}”刚被停用，{days} 天内不能给其他站点使用，请换一个',
  /** {n} {hold} {days}: the account's renames within the hold period, and when the first name is free. */
  siteNameRenamesExceeded:
    '{hold} 天内最多更改 {n} 次站点名（改掉的名字 {hold} 天内仍归原站点所有，别人不能使用）。请约 {days} 天后再改，或改回本站点以前的名字',
  siteNameAvailable: '站点名可以使用',
  siteNameRenamed: '站点名已修改，旧地址会在 30 天内跳转到新地址',
  filesRequired: '请选择要上传的项目文件',
  noFiles: '没有选择文件',
  /** {name} */
  emptyFile: '文件 "{name}" 为空文件',
  fileNameBlank: '有文件没有文件名，请重新选择',
  /** {name} */
  unreadableFile: '文件 "{name}" 为空或无法读取',
  /** {list} */
  unsupportedType: '不支持的文件类型。支持的格式：{list}',
  forbiddenType: '不接受可执行文件、安装程序或服务器端脚本',
  /** {size} */
  fileTooLarge: '文件大小超过限制。最大允许：{size}',
  /** {size} */
  uploadTooLarge: '上传内容总大小超过限制。最大允许：{size}',
  /** {n} */
  tooManyFiles: '文件数量超过限制。最多允许上传 {n} 个文件',
  /** After tooManyFiles in the picker: the way on, since a folder counts as one item. */
  tooManyFilesHint: '可以改为选择整个文件夹（一个文件夹只算一项），或把文件打包成 zip 压缩包再上传',
  /** A folder counts as one item; its files are bounded by the archive entry limit. */
  tooManyFolderFiles: '文件夹中的文件数量超过限制。最多允许 {n} 个',
  dropInvalid: '拖拽的文件无效或为空',
  pickInvalid: '选择的文件无效或为空',
  dropFailed: '处理拖拽内容失败，请重试',
  uploadFailed: '上传失败，请稍后重试',
  uploadSuccess: '文件上传成功！',
  /** The Idempotency-Key header of an upload or deploy (docs/decisions/review.md "An answer is never lost"). */
  idempotencyKeyInvalid: 'Idempotency-Key 请求头无效：应为 1 到 200 个字母、数字或 - _ : . 字符',
  idempotencyKeyReused: '这个 Idempotency-Key 已用于另一个请求，请为新的上传换一个',
  idempotencyKeyOtherPayload: '这个 Idempotency-Key 已用于内容不同的上传，请为新的上传换一个',
  uploading: '上传中...',
  cancelUploadConfirm: '正在上传中，确定要取消吗？',
  deleteConfirm: '确定要删除这个项目吗？此操作不可撤销。',
  /** {message} */
  deleteFailedList: '删除项目失败：{message}',
  deleteFailedDetail: '删除项目失败，请稍后重试',
  deleted: '项目已删除',
  /** The optional reason of an admin's delete (DELETE /api/projects/{id}, body `comment`). */
  deleteReasonTooLong: '删除原因不能超过1000个字符',
  deleteReasonInvalid: '删除原因应为文字',
  loadFailed: '加载项目失败',
  notFound: '项目不存在',
  /** {n} */
  tooManyDownloads: '已有 {n} 个下载正在进行，请等它们完成后再下载',
  /** {n}: UPLOADS_IN_FLIGHT_MAX */
  tooManyUploadsInFlight: '已有 {n} 个上传正在处理，请等它们完成后再上传',
  invalidId: '项目ID无效',
  noDescription: '暂无描述',
  entryNotSet: '未指定',
  updated: '项目已更新',
  addressCopied: '地址已复制到剪贴板',
  previewFailed: '生成预览失败，请重试',
  previewRejected: '这个版本未通过审核或已被下线，不能生成预览；请上传修改后的新版本',
  /** The owner's card and page, which know which of the two it was. */
  previewRejectedVersion: '这个版本未通过审核，不能生成预览；请按原因修改后上传新版本',
  previewTakenDown: '站点已被管理员下线，不能生成预览；请按原因修改后上传新版本',
  /** {reason} */
  decisionReason: '原因：{reason}',
  noReasonGiven: '管理员未填写原因',
  /** A version waiting for review that the content check rates high: only reviewers preview it. */
  previewHighRisk: '这个版本的内容检查为高风险，审核通过前不能生成预览链接',
  /** {n} {window} {minutes} */
  previewLinksExceeded: '生成预览链接过于频繁：每 {window} 分钟最多 {n} 次，请 {minutes} 分钟后再试',
  showcaseLoadFailed: '加载项目失败，请稍后重试',
  showcaseNoMatch: '没有找到匹配的项目',
  showcaseEmpty: '暂无已发布的项目',
  showcaseEnd: '已显示所有项目',
  uploadInterrupted: '上传未完成，连接已中断',
  /** The body stopped arriving for longer than UPLOAD_IDLE_TIMEOUT_SECONDS. */
  uploadIdle: '上传超时：长时间没有收到数据',
  uploadMalformed: '上传的内容格式无效，请重新上传',
  uploadTypeInvalid: '上传类型无效',
  /** A multipart switch (spa_fallback) that is neither true nor false. */
  switchInvalid: '开关的值只能是 true 或 false',
  versionUploaded: '新版本已上传，等待审核',
  /** {used} {quota} {needed}: the upload's stored size, known after extraction. */
  storageQuotaExceeded: '存储空间不足：已使用 {used}，上限 {quota}（本次上传需要 {needed}）',
  /** {used} {quota} {needed}: refused from the request's declared length, before reading it. */
  storageQuotaExceededDeclared: '存储空间不足：已使用 {used}，上限 {quota}（本次上传约 {needed}）',
  /** {n} {minutes} */
  uploadsPerHourExceeded: '上传过于频繁：每小时最多上传 {n} 次，请 {minutes} 分钟后再试',
  storageUsage: '存储空间',
  /** {used} {quota} */
  storageUsageText: '已使用 {used} / {quota}',
} as const;
