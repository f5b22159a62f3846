/** Messages shared by every area: the error envelope's generic texts. */
export const commonMessages = {
  network: '网络错误，请稍后重试',
  notFound: '请求的资源不存在',
  apiNotFound: '接口不存在',
  badRequest: '请求参数无效',
  /** A form field sent twice (multipart): which one counts would be a guess. {field} */
  fieldRepeated: '字段 {field} 只能提供一次',
  tooManyFields: '表单字段过多：最多 {n} 个',
  searchInvalid: '搜索内容无效或过长',
  pageInvalid: '页码无效',
  /** {max} */
  pageSizeRange: '每页数量必须在1到{max}之间',
  invalidJson: '请求内容不是有效的 JSON',
  /** A JSON body with a key that could change objects' prototype (__proto__, constructor.prototype). {name} */
  forbiddenJsonKey: '请求内容含有不允许的字段名 {name}',
  /** A JSON string with a lone surrogate escape (`\\ud800`): it can't be stored as it was sent. */
  loneSurrogate: '请求内容含有无效的字符（不成对的 Unicode 代理项，如 \\ud800），无法按原样保存',
  unauthenticated: '请先登录',
  sessionExpired: '登录已过期，请重新登录',
  forbidden: '没有权限执行此操作',
  adminOnly: '只有管理员可以执行此操作',
  tooManyRequests: '请求过于频繁，请稍后再试',
  auditedWritesExceeded:
    '操作过于频繁：每个账号每 {window} 分钟最多 {n} 次会记入操作日志的操作（修改、删除、下载、上传、令牌、域名等），请 {minutes} 分钟后再试',
  payloadTooLarge: '请求内容过大',
  headersTooLarge: '请求地址或请求头过长',
  hostMissing: '请求缺少 Host 请求头',
  /** 400: two or more Host lines (RFC 9112): which one names the site would be a guess. */
  hostRepeated: '请求含有多个 Host 请求头',
  expectationFailed: '不支持这个 Expect 请求头（只支持 100-continue）',
  /** 414: a path segment past the router's 500 characters. */
  uriTooLong: '请求地址过长',
  unsupportedMediaType: '不支持的请求格式',
  /** 405: a CONNECT request (a proxy tunnel), which no port here answers. */
  methodNotAllowed: '不支持的请求方法',
  internal: '服务器内部错误，请稍后重试',
  timeout: '请求超时，请稍后重试',
  unavailable: '服务暂时不可用，请稍后重试',
  /** 503: the blob store (STORAGE=s3) can't be reached; docs/decisions/faults.md "S3 outages". */
  storageUnavailable: '文件存储暂时不可用，请稍后重试',
  /** 507: the server's disk (staging, blob store or database) is full; not the user's fault. */
  insufficientStorage: '服务器存储空间不足，请联系管理员',
  /** The sites port (SITES_PORT) reached under a name or port it does not know as its own. */
  wrongSitesHost: '这里只提供用户站点。请从平台打开站点的地址（/sites/站点编号/）。',
  /** Admin dashboard, while no SITES_ORIGIN is set (docs/product.md "Serving sites"). */
  sitesPortWarningTitle: '从其他设备访问时，所有站点共用一个来源（origin）',
  /** {port} */
  sitesPortWarning:
    '站点在端口 {port} 上提供，与平台隔离。在本机用 localhost 访问时，每个站点有自己的地址和来源（如 p12.localhost:{port}）；从其他设备用 IP 或域名访问时，所有站点共用一个来源，站点之间可以读写彼此的本地存储和 Cookie。生产环境请设置 SITES_ORIGIN 与 SITES_SUBDOMAINS，让每个站点拥有自己的来源。',
  sandboxedWarningTitle: '站点与平台共用同一来源，仅靠沙箱隔离',
  sandboxedWarning:
    '未设置 SITES_ORIGIN 且 SITES_PORT=0：站点在沙箱中运行，无法使用本地存储、Cookie 和 Service Worker，部分站点因此无法正常工作。生产环境请设置 SITES_ORIGIN 与 SITES_SUBDOMAINS。',
  /** The settings page's 站点访问方式, one title and text per serving mode (README "Serving sites"). */
  siteIsolation: {
    subdomains: {
      /** {origin} */
      title: '独立域名，每个站点一个子域名：{origin}',
      text: '站点与平台分属不同来源，每个站点也各有自己的来源，彼此的本地存储和 Cookie 互不可见。',
    },
    sites_origin: {
      /** {origin} */
      title: '独立域名：{origin}',
      text: '站点与平台分属不同来源，无法读取平台的登录信息；所有站点共用这一个来源。可再设置 SITES_SUBDOMAINS，让每个站点拥有自己的来源。',
    },
    sites_port: {
      /** {port} */
      title: '独立端口：{port}',
      text: '站点在端口 {port} 上提供，不使用沙箱，与平台分属不同来源，无法读取平台的登录信息。本机用 localhost 访问时每个站点有自己的来源（如 p12.localhost:{port}）；从其他设备用 IP 或域名访问时，所有站点共用一个来源。生产环境请设置 SITES_ORIGIN 与 SITES_SUBDOMAINS。',
    },
    sandboxed: {
      title: '与平台同一端口，沙箱隔离',
      text: '站点在 /sites/ 下以沙箱方式运行，无法读取平台的登录信息，但也无法使用本地存储、Cookie 和 Service Worker。可通过环境变量 SITES_ORIGIN 配置独立域名。',
    },
  },
  /**
   * The platform's pages at a site address (server/src/serve/site-answer.ts): every 404 says the
   * same, so a site that is not live can't be told from one that does not exist.
   */
  siteNotFound: '页面不存在，或该站点尚未发布。',
  siteNotFoundHint: '请检查地址是否正确，或到站点展厅看看已发布的项目。',
  /** A preview link that opens nothing: expired, revoked, its version rejected, or never valid. */
  previewGoneTitle: '预览链接已失效',
  previewGone: '这个预览链接已过期或已失效。',
  previewGoneHint: '预览链接只在有效期内可用。请向分享链接的人索取新的链接，或到站点展厅看看已发布的项目。',
  backToShowcase: '返回站点展厅',
  /** The web app, while requests and code chunks find no server (web/src/lib/connection.ts). */
  connectionLost: '无法连接服务器',
  connectionRetrying: '正在自动重试，连接恢复后页面会继续加载。',
  connectionBack: '已重新连接服务器',
  connectionRetryNow: '立即重试',
  genericErrorTitle: '出现了一些问题',
  genericErrorText: '页面遇到了意外错误，请刷新页面重试。',
} as const;
