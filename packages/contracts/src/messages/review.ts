/** Review workflow and admin console. */
export const reviewMessages = {
  statusRequired: '请选择审核状态',
  reasonRequired: '拒绝项目时必须提供原因',
  takedownReasonRequired: '下线项目时必须提供原因',
  commentTooLong: '审核意见不能超过1000个字符',
  batchSize: '请选择 1 到 100 个项目',
  batchIdsInvalid: '项目编号无效',
  quickRejectComment: '需要进一步修改',
  reviewDone: '审核完成',
  reviewFailed: '提交审核失败',
  actionFailed: '操作失败',
  approved: '项目已通过',
  rejected: '项目已拒绝',
  published: '项目已设为精选',
  unpublished: '已取消精选',
  takenDown: '项目已下线',
  /** {from} {action} */
  transitionNotAllowed: '当前状态（{from}）不能执行此操作（{action}）',
  /**
   * {version}: the newest version now, when a decision named the one the reviewer saw and the owner
   * uploaded another meanwhile.
   */
  versionChanged: '项目已有新上传的版本（第 {version} 版），请重新查看后再审核',
  versionInvalid: '版本号无效',
  adminDataFailed: '获取数据失败',
  reviewListFailed: '获取项目列表失败',
  reviewDetailFailed: '获取项目信息失败',
  configSaved: '设置已保存',
  configInvalid: '设置无效',
  /** {field} {min} {max}: a setting outside its range. */
  configRange: '{field}必须是 {min} 到 {max} 之间的整数',
  configDomainApprovalInvalid: '“自定义域名需管理员批准”必须是开或关',
  configRenderPublicAssetsInvalid: '“截图时允许加载公网样式表、字体和图片”必须是开或关',
  configExtensionsRequired: '至少需要允许一种文件类型',
  /** Not a list of extension strings (a string, numbers). */
  configExtensionsList: '允许的文件类型应为扩展名的列表，如 ["html", "css"]',
  /** {n}: ALLOWED_EXTENSIONS_MAX, counted without repeats. */
  configExtensionsTooMany: '允许的文件类型最多 {n} 种',
  /** {ext}: an executable, installer or server-side script type. */
  configExtensionUnknown: '不能允许文件类型 .{ext}：可执行文件、安装程序和服务器端脚本不能上传',
  /** {ext} */
  configExtensionInvalid: '文件类型“{ext}”无效：扩展名只能包含小写字母、数字和 - _ +，最长 16 个字符',
  configUnknownTypesInvalid: '请选择其他类型文件的处理方式',
  configBooleanInvalid: '请选择是或否',
  /** The choices for files of other types (settings page, audit log). */
  unknownFileTypeLabels: {
    download: '保存，仅供下载（不作为网页内容）',
    skip: '跳过，不保存',
    refuse: '拒绝整个上传',
  },
  configFileOverUpload: '单个文件大小不能超过单次上传总大小',
  /** Asked before approving a version with files but no entry page (review detail, lists). */
  approveNoEntry:
    '这个版本没有首页（index.html），上线后打开站点地址会显示 404，展厅里也打不开它；可以拒绝并请所有者只上传含 index.html 的文件夹。',
  rollbackDone: '已回滚到所选版本',
  /** The same call to a version newer than the live one: a roll-forward, not a rollback. */
  switchDone: '已切换到所选版本',
  rollbackNotAllowed: '只能回滚到已通过审核的历史版本',
  rollbackOffline: '项目当前未上线，不能回滚版本',
  deploymentIdInvalid: '版本编号无效',
  rollbackAlreadyLive: '所选版本已是线上版本',
  deploymentNotFound: '版本不存在',
  auditFilterInvalid: '筛选条件不能包含控制字符',
  auditTimeInvalid: '时间格式无效，请使用 ISO 8601 格式（如 2024-05-01 或 2024-05-01T08:00:00Z）',
  /** The content check's findings (review detail) and its badge (review list). */
  contentCheck: {
    missingEntry: '未找到入口文件（index.html）：站点根地址无法打开',
    /** {path}: an index.html in a subfolder (a build's dist/), {folder}: that folder. */
    missingEntryNested:
      '站点根目录没有 index.html，站点根地址无法打开。找到了 {path}：请只上传 {folder} 文件夹里的内容',
    /** {url} */
    rootAbsolute:
      '以 / 开头的地址“{url}”：本平台的站点地址形如 /sites/站点名/，这类地址要靠平台转接才能打开，页面不发送来源（no-referrer）时会失效',
    /** The render saw a client-side router that changes the path (history API), not the hash. */
    runtimeHistoryRouting:
      '页面用前端路由切换地址（History API）：项目未开启“单页应用回退”时，刷新或直接打开子页面（如 /about）会显示 404',
    /** {url} */
    missingFile: '引用的文件不在上传内容中：“{url}”，打开页面时会加载失败',
    /** {url} {suggestion}: a file of the site whose name differs only in case. */
    missingFileCase: '引用的文件不在上传内容中：“{url}”，是否应为 {suggestion}？网址区分大小写',
    /** {url}: a path on the uploader's own computer (C:\\…, file:///…). */
    localComputerFile:
      '引用了你自己电脑上的文件“{url}”：访客的电脑上没有这个文件，页面会加载失败。请把文件放进站点文件夹，改用相对路径（如 images/pic.jpg）',
    /** The render saw history routing while the entry page loads its files by relative paths. */
    relativeAssets:
      '页面用前端路由切换地址（History API），但入口页用相对路径加载脚本或样式（如“{url}”）：直接打开或刷新子页面（如 /users/42）时这些文件会找不到，页面一直空白或停在加载中',
    /** {domain} */
    externalScript: '引用外部脚本：{domain}',
    /** {domain} */
    externalStylesheet: '引用外部样式表：{domain}',
    /** {domain} */
    externalFrame: '嵌入外部页面或内容：{domain}',
    /** {signals}: what made the form look like phishing, joined with "、". */
    phishingForm: '疑似钓鱼表单：{signals}',
    passwordForm: '页面包含密码输入框，表单提交目标可疑：静态站点无法处理登录',
    passwordFormDemo: '演示用登录表单（action 为空或 #，不提交到任何地方）',
    /** {domain} */
    passwordFormExternal: '表单收集密码并提交到外部域名 {domain}：疑似钓鱼',
    /** {what} {domain} */
    sensitiveToFormService: '表单把{what}提交到表单服务 {domain}：表单服务只用来收留言和报名，不该收这些',
    /** {domain} */
    externalForm: '表单提交到外部域名 {domain}',
    /** {domain} */
    externalFormGet: '表单以 GET 方式提交到外部域名 {domain}（如站外搜索框），不含敏感字段',
    /** {domain} */
    formService: '表单提交到表单服务 {domain}',
    /** {url} */
    formServerScript: '表单提交到服务器脚本“{url}”：静态站点不能运行它，可能是钓鱼页面的残留',
    /** {domain} */
    metaRefresh: '页面自动跳转（meta refresh）到外部域名 {domain}',
    /** {domain} */
    scriptRedirect: '脚本将页面跳转到外部域名 {domain}',
    scriptRedirectOnAction:
      '访客点击、提交或选择后，脚本把页面带到外部域名 {domain}（与链接、表单相同，不是页面自行跳走）',
    /** {domain} {decoder} */
    scriptRedirectHidden: '脚本将页面跳转到外部域名 {domain}，目标地址用 {decoder} 编码隐藏',
    historyTrap: '访客一按“返回”，脚本就再塞入一条历史记录：劫持返回键，让人离不开这个页面',
    /** {fn} {decoder} */
    decodedExecution: '通过 {fn} 执行或输出 {decoder} 解码后的内容（混淆特征）',
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
    /** {domain} {sink} */
    networkSink: '脚本向外部域名 {domain} 发送请求（{sink}）',
    /** {domain} {sink} {source} */
    networkSinkWithInput: '脚本读取{source}并发送到外部域名 {domain}（{sink}）：疑似窃取用户输入',
    /** {what} {host} */
    exfilEndpoint: '脚本引用常被用来外传数据的地址：{what}（{host}）',
    /** {domain} {how} */
    hiddenFrame: '隐藏的外部框架：{domain}（{how}），访客看不到它却会加载它',
    /** {url} */
    executableDownload: '链接到可执行文件或安装包：“{url}”',
    /** {topics} {words} */
    scamText: '页面含{topics}类诈骗常见用语：{words}',
    /** {topics} {words} {extras} */
    scamTextWithContact: '页面含{topics}类诈骗常见用语（{words}），并附有{extras}',
    /** {topics} {words} {extras} */
    scamTextWithPayment: '页面含{topics}类诈骗常见用语（{words}），并同时附有{extras}：典型的诈骗引流页',
    /** {file} */
    checkIncomplete: '自动检查未能在时限内读完“{file}”，请人工检查该文件',
    /** {ext} */
    htmlInOtherType: '文件扩展名为 .{ext}，内容却是 HTML 页面',
    /** {ext} */
    invalidJson: '文件扩展名为 .{ext}，内容不是有效的 JSON',
    /** {ext} */
    notHtml: '文件扩展名为 .{ext}，内容不像 HTML',
    svgScript: 'SVG 图片中包含脚本',
    /** {size} */
    largeFile: '文件较大（{size}），可能影响加载速度',
    /** {host} {count} {types} */
    runtimeDataSent:
      '页面运行时向外部主机 {host} 发送数据（{count} 个请求：{types}），它不是已知的、用来接收这类数据的服务',
    /** {host} {count} {types} */
    runtimeDataHidden:
      '页面运行时向外部主机 {host} 发送数据（{count} 个请求：{types}），而这个地址在站点文件里看不到，或发送它的代码经过混淆：有意隐藏',
    /** {service} {host} {count} {types} */
    runtimeDataDropped:
      '页面运行时向{service}（{host}）发送数据：静态页面没有理由往那里发任何东西（{count} 个请求：{types}）',
    /** {what} {host} {count} {types} */
    runtimeSensitiveSent: '页面运行时把{what}发往 {host}（{count} 个请求：{types}）',
    /** {purpose} {service} {host} {count} {types} */
    runtimeService: '页面运行时使用{purpose} {service}（{host}，{count} 个请求：{types}）',
    /** {host} {count} {types} */
    runtimeExternalRequest: '页面运行时请求外部主机 {host}（{count} 个请求：{types}）',
    /** What a request carried, for runtimeSensitiveSent (server/src/content-check/services.ts DataKind). */
    dataKinds: {
      usage: '访问统计',
      message: '留言',
      credential: '密码',
      card: '银行卡号',
      'id-number': '身份证号',
      'sms-code': '短信验证码',
      keystrokes: '键盘输入',
      clipboard: '剪贴板内容',
    },
    /** {host} {count} {types} */
    runtimeExternalAsset: '页面运行时加载外部资源：{host}（{count} 个：{types}）',
    /** {host} */
    runtimeNavigation: '页面打开后自动离开，跳转到 {host}',
    /** {host}: the visitor's click or submitted form led there (render/render-page.ts byVisitor). */
    runtimeNavigationOnAction: '访客点击按钮或提交表单后，页面跳转到 {host}',
    /** {url} */
    runtimeDownload: '页面打开后尝试下载文件：“{url}”',
    /** {what} */
    runtimePermission: '页面打开后请求权限：{what}',
    /** {type} {message} */
    runtimeDialog: '页面打开后弹出对话框（{type}）：{message}',
    runtimeBlank: '页面打开后显示为空白',
    /** {limit} */
    runtimeMemory: '页面运行时试图占用大量内存（超过 {limit} MB），已被终止：可能意在耗尽访客或服务器的资源',
    /** {message} */
    runtimeConsoleError: '页面运行时出错：{message}',
    /** {url} */
    runtimeMissing: '页面运行时加载的文件不存在：“{url}”',
    /** {url}: a script or stylesheet the browser refused because the 404 answer is no script or style. */
    runtimeMissingAsset: '页面运行时加载的文件不存在：“{url}”，浏览器无法把 404 页面当作脚本或样式使用',
    /** {what} {field} {host} {via} {encoding} */
    runtimeCanaryLeak: '页面把访客在“{field}”中输入的{what}发往其他主机 {host}（{via}，{encoding}）',
    /** {what} {field} {host} {via} {encoding} */
    runtimeCanaryContact: '页面把访客在“{field}”中输入的{what}发往其他主机 {host}（{via}，{encoding}）',
    /** {what} {field} {host} {why} {via} {encoding} */
    runtimeCanaryHidden:
      '页面把访客在“{field}”中输入的{what}隐蔽地发往其他主机 {host}：{why}（{via}，{encoding}）',
    /** Why a canary's send is hidden, for runtimeCanaryHidden (server/src/content-check/runtime.ts). */
    canaryHiddenWhy: {
      keystrokes: '逐键或分批发出按键，是键盘记录器的做法',
      channel: '藏在 DNS 预解析、预连接链接的域名或样式表的 url() 请求里',
      destination: '这个地址在站点文件里看不到，或发送它的代码经过混淆',
    },
    /** {what} {field} {via} */
    runtimeCanaryOwn: '页面把访客在“{field}”中输入的{what}发回本站（{via}），仅供参考',
    /** {seconds} */
    runtimeLoadTimeout: '页面在 {seconds} 秒内未完成加载（load 事件未触发），截图和运行记录取自时限到达时',
    /** {reason} */
    runtimeRenderFailed: '渲染失败，未能完整看到页面运行时的行为：{reason}',
    /** {kind} {detail} */
    runtimeScriptError: '页面运行时出错（{kind}）：{detail}',
    notChecked: '未检查',
    /** Why a version got its level, in one sentence (server/src/content-check/report.ts reasonOf). {finding} {more} */
    reasonHigh: '判为高风险，几乎可以肯定有恶意：{finding}{more}。',
    /** {finding} {more} */
    reasonMedium: '判为中风险，请人工查看：{finding}{more}。',
    /** {level} {finding} {more} */
    reasonInfo: '判为{level}，只有供参考的信息，没有发现把访客数据送走或欺骗访客的迹象：{finding}{more}。',
    reasonClean: '自动检查未发现已知风险。',
    /** {count} */
    reasonMore: '（另有 {count} 项同级发现）',
    /** A report without risk findings: never a reassuring "no problems". */
    noKnownRisk: '自动检查未发现已知风险',
    noKnownRiskHint: '自动检查只能发现已知的风险特征，发布前仍请预览站点并人工判断。',
    coversTitle: '自动检查涵盖',
    covers: [
      'HTML 中的外部脚本、样式、框架（含隐藏框架）、表单及其提交目标、页面跳转',
      '脚本中的网址（含 base64、百分号、十六进制、fromCharCode 可静态解码的部分）、向外部发送数据的调用及其是否读取键盘、剪贴板、表单和密码输入',
      '已知的数据外传地址（Telegram 机器人、Discord 等 Webhook、粘贴板网站、IP 地址、内网穿透服务）',
      '钓鱼表单（敏感字段、品牌词、诱导用语、提交目标）、可执行文件和安装包链接',
      '赌博、彩票、投资、收款类诈骗用语与收款码、联系方式',
      'eval、document.write 等执行解码内容的混淆写法，已知挖矿脚本',
    ],
    notCoveredTitle: '不涵盖',
    notCovered: [
      '图片、视频中的文字与内容（收款码只按文件名和说明文字识别）',
      '运行时才拼出的网址、从服务器加载的内容、复杂混淆',
      '外部网站本身是否安全、页面内容是否侵权或违法',
      '超过单个文件读取上限（2 MB）或总读取上限（64 MB）的部分',
    ],
    usabilityTitle: '可用性问题',
    usabilityHint: '这些问题不影响审核结论，但会让站点显示不正常，修改后重新上传新版本即可。',
    usabilityNotesHint: '站点可以正常打开，这些是让它在各种访问方式下都正常的建议，不影响审核结论。',
    /** {line} */
    excerptAt: '第 {line} 行',
    sourcePathRequired: '请指定要查看的文件',
    sourceLineInvalid: '行号无效',
    sourceNotFound: '该版本中没有这个文件',
    sourceNotText: '只能查看文本文件（HTML、CSS、JavaScript、SVG、JSON 等）',
    sourceFailed: '读取文件失败',
  },
  /** The line diff of a changed text file on the review detail (docs/decisions/review.md). */
  fileDiff: {
    noVersions: '项目没有可比较的线上版本和新版本',
    /** {size} */
    tooLarge: '文件过大（超过 {size}），不显示逐行差异',
    tooComplex: '差异过多，无法逐行显示，请下载两个版本比较',
    identical: '两个版本的文本内容相同（只有换行符或编码不同）',
    failed: '加载逐行差异失败',
  },
} as const;

export const CONTENT_CHECK_LEVEL_LABELS = {
  high: '高风险',
  medium: '中风险',
  low: '低风险',
  info: '提示',
  clean: '未发现已知风险',
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
  network_sink: '向外部发送数据',
  exfil_endpoint: '数据外传地址',
  hidden_frame: '隐藏框架',
  executable_download: '可执行文件下载',
  scam_text: '诈骗用语',
  check_incomplete: '检查未完成',
  runtime_request: '运行时外部请求',
  runtime_navigation: '打开后跳转',
  runtime_download: '自动下载',
  runtime_prompt: '弹窗或权限请求',
  runtime_memory: '耗尽内存',
  blank_page: '空白页面',
  console_error: '脚本错误',
  history_routing: '前端路由',
  relative_assets: '相对资源路径',
  runtime_canary: '访客输入被发送',
  render_failed: '渲染未完成',
} as const;

/** What the render's visitor typed (docs/render.md "The visitor"), as findings name it. */
export const CANARY_KIND_LABELS = {
  password: '密码',
  card: '银行卡号',
  id_number: '身份证号',
  sms_code: '短信验证码',
  phone: '手机号',
  email: '邮箱',
  username: '用户名',
  text: '文字',
  keystrokes: '按键',
} as const;

/** How a request left the page (Chromium's resource types). */
export const CANARY_VIA_LABELS: Record<string, string> = {
  fetch: 'fetch 请求',
  xhr: 'XHR 请求',
  ping: 'sendBeacon 信标',
  image: '图片信标',
  websocket: 'WebSocket',
  document: '表单提交或页面跳转',
  eventsource: 'EventSource',
  script: '脚本请求',
  stylesheet: '样式表请求',
  other: '其他请求',
  css: '样式表中的 url() 请求',
  'dns-prefetch': 'DNS 预解析链接',
  preconnect: '预连接链接',
  prefetch: '预取链接',
  prerender: '预渲染链接',
  preload: '预加载链接',
  modulepreload: '模块预加载链接',
};

export const CANARY_ENCODING_LABELS: Record<string, string> = {
  plain: '明文',
  url: 'URL 编码',
  base64: 'base64 编码',
  hex: '十六进制编码',
  escape: '转义字符',
  keys: '逐键或分批发送',
  fragment: '只发出了一部分',
  base32: 'base32 编码',
};

/** The kinds of script errors, as the review screen names them (the original is the excerpt). */
export const SCRIPT_ERROR_LABELS: Record<string, string> = {
  TypeError: '类型错误',
  ReferenceError: '引用了未定义的名称',
  SyntaxError: '语法错误',
  RangeError: '数值超出范围',
  SecurityError: '安全限制',
  NetworkError: '网络错误',
  NotAllowedError: '操作不被允许',
  QuotaExceededError: '存储空间已满',
  URIError: '网址编码错误',
  EvalError: 'eval 错误',
  Error: '脚本错误',
};

/** Which findings are usability problems (the uploader's to fix); every other kind is a risk. */
export const USABILITY_KINDS = [
  'missing_entry',
  'root_absolute_link',
  'missing_file',
  'type_mismatch',
  'large_file',
  'blank_page',
  'console_error',
  'history_routing',
  'relative_assets',
] as const;

/** How the uploader fixes each usability finding (project detail page, upload result). */
export const CONTENT_CHECK_FIXES: Record<(typeof USABILITY_KINDS)[number], string> = {
  missing_entry:
    '在站点根目录放一个 index.html（或把入口页改名为 index.html）；构建好的站点在 dist、build 等子文件夹里时，只上传那个文件夹里的内容。然后上传新版本',
  root_absolute_link:
    '普通页面可把以 / 开头的地址改为相对地址（如 /assets/app.js 改为 assets/app.js）；用前端路由（History 模式）的单页应用不要改为 ./，应把构建的 base 设为站点的实际路径（Vite：base: "{path}"）后重新构建',
  missing_file: '把缺少的文件一起上传，或修正引用的路径（注意大小写；路径分隔符请用 /）',
  type_mismatch: '把文件改为与内容相符的扩展名，或修正文件内容',
  large_file: '压缩图片和视频，或改用更小的文件，访客打开会更快',
  blank_page: '在浏览器中打开站点检查：入口页是否有内容，脚本是否报错，内容是否依赖外部网站加载',
  console_error: '在浏览器开发者工具的控制台中查看报错并修正脚本，再上传新版本',
  history_routing:
    '在项目详情页的“路由规则”中开启“单页应用回退”：站点里不存在的路径都会打开 index.html，由前端路由显示对应页面',
  relative_assets:
    '入口页里的脚本和样式改用以 / 开头的地址（Vite 设置 base: "/"，不要设为 "./"）后重新构建，子页面刷新时也能加载',
};
