/** The render worker's words (docs/render.md): job failures and the admin's re-render. */
export const renderMessages = {
  timedOut: '页面在 10 秒内未加载完成（或无法截图），渲染超时',
  failed: '渲染失败',
  /** {limit} */
  memoryExceeded: '页面占用内存超过 {limit} MB，渲染已终止，不再重试',
  /** The render's browser itself passed its limit and was restarted (the render is tried again). {limit} */
  browserMemoryExceeded: '渲染用的浏览器占用内存超过 {limit} MB，浏览器已重启',
  /** A render that met a storage outage: queued again, not counted as a try. */
  storageUnavailable: '文件存储暂时不可用，存储恢复后将自动重新渲染',
  /** {n} */
  queued: '已加入渲染队列（{n} 个版本）',
  unavailable: '服务器未安装 Chromium，无法生成站点截图',
  thumbnailNotFound: '图片不存在',
  /** The review page's render card. */
  cardTitle: '渲染',
  states: {
    queued: '排队中',
    running: '渲染中',
    done: '已完成',
    failed: '失败',
    none: '未渲染',
  },
  /** {n} */
  attempts: '已尝试 {n} 次',
  /** {version} */
  versionLabel: '版本 v{version}',
  // The newest version whatever its review says (it may be approved, rejected or live by now).
  newestTag: '最新版本',
  liveTag: '线上版本',
  noRenders: '尚无版本',
  failedHint: '渲染失败时运行时检查不完整，请预览站点人工确认；可点击「重新截图」再试。',
} as const;
