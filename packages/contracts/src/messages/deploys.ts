/** API tokens and digest deploys (the `sitehall` command line, docs/product.md "Deploy from the command line"). */
export const deployMessages = {
  tokenNameRequired: '请输入令牌名称',
  tokenNameTooLong: '令牌名称不能超过50个字符',
  tokenNameInvalid: '令牌名称不能包含控制字符、零宽字符或文字方向控制符等看不见的字符',
  /** {n} */
  tooManyTokens: '每个账号最多 {n} 个 API 令牌，请先撤销不用的令牌',
  tokenCreated: '令牌已创建，请立即复制保存，它只显示这一次',
  tokenRevoked: '令牌已撤销',
  tokenInvalid: 'API 令牌无效或已被撤销',
  tokenNotFound: '令牌不存在或已撤销',
  /** The admin's users page: one account's tokens. */
  userTokensTitle: '{name} 的 API 令牌',
  userTokensEmpty: '该用户没有 API 令牌',
  userTokensLoadFailed: 'API 令牌加载失败',
  userTokenRevokeConfirm: '撤销令牌 "{name}" 后，使用它的命令行和 CI 将立即失去访问权限。确定撤销吗？',
  /** A token may act only for its owner's projects and deploys. */
  tokenForbidden: 'API 令牌只能用于管理自己的项目和部署，此操作请在网页中登录后进行',
  deployNotFound: '部署不存在或已过期，请重新开始部署',
  deployTargetRequired: '请提供 project_id（已有项目）或 project_name（新项目）之一',
  /** A project_id that is no project number at all (a string, 1.5, 0, 1e30). */
  projectIdInvalid: 'project_id 应为已有项目的编号（正整数）',
  manifestRequired: '请提供要部署的文件清单 files',
  manifestInvalid: '文件清单格式不正确：每一项应为 "路径": "SHA-256（64位小写十六进制）"',
  manifestTooLarge: '文件清单过大（超过 {size}）：请减少文件数量或缩短路径',
  manifestOrBase:
    '请提供完整的文件清单 files，或提供 base_version、base_digest 和 changes（基于已有版本的改动），二者选一',
  baseVersionInvalid: 'base_version 应为项目已有版本的版本号（正整数）',
  baseDigestInvalid: 'base_digest 格式不正确（应为64位小写十六进制的 SHA-256）',
  changesInvalid: '改动清单格式不正确：每一项应为 "路径": "SHA-256（64位小写十六进制）"，删除的文件为 null',
  baseNeedsProject: 'base_version 只能用于已有项目：请同时提供 project_id',
  /** {version}: the base version (409; the CLI then sends the whole manifest). */
  baseMismatch:
    '基准版本（第 {version} 版）不存在、不属于此项目或与本地记录的文件清单不一致，请提交完整的文件清单',
  /** {path}, {version} */
  baseRemovedMissing: '要删除的文件 {path} 不在基准版本（第 {version} 版）中，请提交完整的文件清单',
  /** {version}: the base version went while the deploy was open (409, nothing kept). */
  baseGone: '基准版本（第 {version} 版）在部署期间已被删除，请重新部署',
  hashInvalid: 'SHA-256 格式不正确（应为64位小写十六进制）',
  /** {sha256} */
  hashNotInDeploy: '此部署的文件清单中没有内容 {sha256}',
  /** {sha256} */
  hashMismatch: '上传内容与 SHA-256 不符：{sha256}',
  /** {n} */
  filesMissing: '还有 {n} 个文件尚未上传，请上传后再完成部署',
  /** {n}, {minutes} */
  tooManyOpenDeploys: '未完成的部署已有 {n} 个，请先完成它们，或等待约 {minutes} 分钟后过期再试',
  /** {n}, {window}, {minutes} */
  deployStartsExceeded: '开始部署过于频繁：每 {window} 分钟最多 {n} 次，请 {minutes} 分钟后再试',
  deployStarted: '部署已开始',
  /** {version} */
  deployUnchanged: '文件与最新版本（第 {version} 版）完全相同，未创建新版本',
  fileReceived: '文件已接收',
  /** {n}: DEPLOY_TRANSFERS_IN_FLIGHT_MAX */
  tooManyTransfers: '已有 {n} 个文件传输正在进行，请等它们完成后再试',
  /** {n} */
  filesReceived: '已接收 {n} 个文件',
  /** {n} */
  batchTooManyFiles: '一批最多上传 {n} 个文件，请分成几批上传',
  batchNotFile: '每一部分都应是一个文件，字段名为该文件内容的 SHA-256',
  /** {sha256} */
  batchDuplicate: '同一批中内容 {sha256} 出现了不止一次',
  batchEmpty: '这一批中没有文件',
  deployFinished: '部署完成，新版本等待审核',
  /** A deploy ended by its client before its finish (a failure, Ctrl+C): nothing of it is kept. */
  deployCancelled: '部署已取消',
  /**
   * {first}, {second}: two paths of a folder that `sitehall deploy` refuses before sending anything:
   * the same name in NFC (they look alike), which the server would take for one (archive's
   * duplicateName); a folder's with a slash.
   */
  nameClashForm:
    '存在重复或仅大小写不同的文件名："{first}" 与 "{second}"（两者只是 Unicode 写法不同，看起来一样：' +
    '例如 é 可以是一个字符，也可以是 e 加一个重音符号）：请改名或删除其中一个后再部署',
  /**
   * {first}, {second}: two paths of a folder that differ only in case, refused by `sitehall deploy`
   * before anything is read or sent, as the server refuses them (archive's duplicateName).
   */
  nameClashCase:
    '存在重复或仅大小写不同的文件名："{first}" 与 "{second}"（只有大小写不同：在 Windows 和 macOS 上，' +
    '以及在网址中，两者会被当成同一个）：请改名或删除其中一个后再部署',
} as const;
