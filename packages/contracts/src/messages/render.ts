/** The render worker's words (docs/render.md): job failures and the admin's re-render. */
export const renderMessages = {
  timedOut: '页面在 10 秒内未加载完成（或无法截图），渲染超时',
  failed: '渲染失败',
  /** A render that met a storage outage: queued again, not counted as a try. */
  storageUnavailable: '文件存储暂时不可用，存储恢复后将自动重新渲染',
  /** {n} */
  queued: '已加入渲染队列（{n} 个版本）',
  unavailable: '服务器未安装 Chromium，无法生成站点截图',
  thumbnailNotFound: '图片不存在',
} as const;
