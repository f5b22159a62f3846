/** The notification centre, its e-mails and a site's analytics. */
export const notificationMessages = {
  notFound: '通知不存在',
  allRead: '已全部标为已读',
  emailOn: '已开启邮件通知',
  emailOff: '已关闭邮件通知',
  /** E-mail: the subject is the notice's title with this prefix. */
  mailSubjectPrefix: '[站点展厅] ',
  /** {label}: 原因 for a refusal (rejected, taken down), 审核意见 for an approval's comment. */
  mailReason: '{label}：{reason}',

  mailLink: '查看：{url}',
  mailFooter: '不想再收到这类邮件？请在「个人设置」中关闭邮件通知。',
  cliNotBuilt: '命令行工具的安装包尚未生成，请先在服务器上运行 npm run build',
} as const;
