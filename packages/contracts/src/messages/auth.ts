/** Sign-in, sessions, profile and account administration. */
export const authMessages = {
  usernameOrEmailRequired: '请输入用户名或邮箱',
  passwordRequired: '请输入密码',
  usernameRequired: '请输入用户名',
  usernameTooShort: '用户名至少3个字符',
  usernameTooLong: '用户名不能超过32个字符',
  usernameInvalid: '用户名只能包含字母、数字、下划线、连字符和中文',
  usernameInvisible: '用户名不能包含零宽字符、填充符等看不见的字符',
  usernameTaken: '用户名已存在',
  emailInvalid: '邮箱格式不正确',
  emailTaken: '邮箱已被使用',
  emailNotificationsInvalid: '邮件通知设置必须是开或关',
  loginFailed: '登录失败',
  /** The sign-in page, for a visitor sent there from 开始使用 (/register). */
  accountsByAdmin: '账号由管理员创建：平台不开放自助注册，请联系管理员为你创建账号后再登录。',
  badCredentials: '用户名或密码错误',
  /** {n}: failures left before this address is refused for the account; {minutes}: how long. */
  badCredentialsLeft: '用户名或密码错误，再错 {n} 次将暂停登录 {minutes} 分钟',
  /** The failure that begins a lock-out; {minutes}: whole minutes until it ends. */
  badCredentialsLocked: '用户名或密码错误，失败次数过多，请在 {minutes} 分钟后重试',
  userUnlocked: '已解除登录锁定',
  userNotLocked: '该用户当前没有被锁定',
  /** {name}: the account an admin is about to unlock. */
  unlockUserConfirm: '解除「{name}」的登录锁定？连续密码错误的计数将清零，可立即再次登录。',
  accountDisabled: '账号已被停用，请联系管理员',
  loginThrottled: '登录失败次数过多，请稍后再试',
  loginBusy: '登录请求过多，请稍后再试',
  /**
   * {wait}: a throttled sign-in on the login page, with the wait from Retry-After
   * (retryInMinutes or retryInSeconds).
   */
  loginThrottledFor: '登录失败次数过多，{wait}',
  loginBusyFor: '登录请求过多，{wait}',
  /** {n}: whole minutes, rounded up (a wait of a minute or more). */
  retryInMinutes: '请在 {n} 分钟后重试',
  /** {n}: seconds (a wait under a minute). */
  retryInSeconds: '请在 {n} 秒后重试',
  loginSuccess: '登录成功',
  logoutSuccess: '登出成功',
  logoutFailed: '登出失败',
  registerSuccess: '注册成功！请保存生成的密码',
  registerRestrictedTitle: '访问受限',
  registerRestrictedText: '只有管理员可以注册新用户',
  passwordCopied: '密码已复制到剪贴板',
  copyFailed: '复制失败，请手动复制',
  passwordOnceWarning: '离开此页面后将无法再次查看该密码，请立即复制并妥善保存。',
  /** Under the warning: the account is asked to choose its own (docs/decisions/accounts.md "Initial passwords"). */
  passwordInitialHint: '对方用它登录后，系统会提醒其改为只有自己知道的密码。',
  emailNotSet: '未设置',
  currentPasswordRequired: '请输入当前密码',
  currentPasswordWrong: '当前密码不正确',
  /** A new password equal to the current one: a generated password would stay what the admin saw. */
  newPasswordSame: '新密码不能与当前密码相同',
  currentPasswordThrottled: '当前密码错误次数过多，请稍后再试',
  newPasswordTooShort: '新密码至少8个字符',
  newPasswordTooLong: '新密码不能超过128个字符',
  // Why a chosen password is refused (server/src/domain/password-strength.ts).
  passwordTooCommon: '密码过于常见，请换一个不容易被猜到的密码',
  passwordHasUsername: '密码不能包含用户名',
  /** At first start, ADMIN_PASSWORD that fails the strength rule stops the server (printed, with English). */
  adminPasswordWeak:
    'ADMIN_PASSWORD 不够安全（{reason}），未创建管理员账号，服务器已停止。请换一个更难猜的密码，或不设置它以生成随机密码',
  passwordRepetitive: '密码不能是重复或连续的字符',
  passwordKeyboardPattern: '密码不能是键盘上相邻的按键',
  passwordGuessable: '密码太容易被猜到，请使用更长的密码，或混合字母、数字和符号',
  profileUpdated: '个人资料已更新',
  avatarInvalid: '头像必须是 PNG、JPEG、GIF 或 WebP 图片',
  avatarRemote: '头像不能使用网络地址，请上传图片文件',
  avatarTooLarge: '头像图片不能超过 150 KB',
  /** The bytes are no image of the type the data: URL names (SVG labelled PNG, a truncated file). */
  avatarUnreadable: '头像图片无法读取，或内容与文件类型不符，请换一张 PNG、JPEG、GIF 或 WebP 图片',
  /** {max}: AVATAR_MAX_PIXELS_SIDE */
  avatarDimensions: '头像图片的宽和高都不能超过 {max} 像素',
  userNotFound: '用户不存在',
  cannotChangeOwnRole: '不能修改自己的角色',
  cannotDisableSelf: '不能停用自己的账号',
  cannotDeleteSelf: '不能删除自己的账号',
  cannotResetOwnPassword: '不能重置自己的密码，请在“个人设置”中修改',
  lastAdmin: '至少需要保留一个可用的管理员账号',
  roleInvalid: '角色无效',
  passwordReset: '密码已重置',
  userDisabled: '用户已停用',
  userEnabled: '用户已启用',
  userDeleted: '用户已删除',
  roleChanged: '角色已修改',
  userHasProjects: '该用户仍有项目，请先删除其项目，或改为停用账号',
  /** {name} {count}: asked before deleting, when the list shows the user still owns projects. */
  userOwnsProjects: '用户 "{name}" 还有 {count} 个项目，不能删除。请先删除其项目，或停用该账号。',
  userUpdated: '用户信息已更新',
  disabledInvalid: '停用状态必须是 true 或 false',
  /** {min} {max} */
  storageQuotaInvalid: '存储配额必须在 {min} 到 {max} 之间（留空则使用平台默认值）',
  storageQuotaSaved: '存储配额已更新',
  passwordChanged: '密码已修改，其他设备上的登录已退出',
  passwordMismatch: '两次输入的新密码不一致',
  usersLoadFailed: '获取用户列表失败',
  /** {name} {role} */
  roleChangeConfirm: '确定将 "{name}" 的角色修改为{role}吗？',
  /** {name} */
  disableUserConfirm: '停用后 "{name}" 将被立即登出，其 API 令牌全部撤销，且无法再登录。确定停用吗？',
  /** {name} */
  resetPasswordConfirm: '将为 "{name}" 生成新密码，使其所有登录会话失效并撤销其全部 API 令牌。确定重置吗？',
  /** {name} */
  deleteUserConfirm: '确定要删除用户 "{name}" 吗？此操作不可撤销。',
  // Fallbacks for request validation where a schema gives no message of its own (any area).
  fieldInvalid: '字段 {field} 的值无效',
  fieldNotAllowed: '不支持的字段：{field}',
} as const;
