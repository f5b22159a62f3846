/** Custom domains: the owner's card, the admin's list and the DNS check. */
export const domainMessages = {
  domainRequired: '请输入域名',
  domainInvalid: '请输入有效的域名，例如 www.example.com（不带 http:// 和路径）',
  /** The platform's own hosts (the sites host and its subdomains). */
  domainReserved: '这个域名属于平台自身，不能绑定到项目',
  /** SITES_ORIGIN is not set: there is no origin a custom domain could be served as. */
  unavailable: '本平台尚未为站点配置独立域名，暂不支持绑定自定义域名，请联系管理员',
  /**
   * SITES_ORIGIN without PUBLIC_URL: sites have their own origin, but the platform does not know
   * its own host, which a project could otherwise take (the owner's words for notServedNoPublicUrl).
   */
  unavailableNoPublicUrl:
    '本平台尚未设置自己的网址（PUBLIC_URL），为防止项目占用平台的域名，暂不支持绑定自定义域名，请联系管理员',
  notLive: '项目上线后才能绑定自定义域名',
  /**
   * Why a domain is not served (its `not_served_reason`). SITES_ORIGIN without PUBLIC_URL: the
   * server says the same at start (server/src/config.ts customDomainsNotice).
   */
  notServedNoPublicUrl:
    '已设置 SITES_ORIGIN 但未设置 PUBLIC_URL：平台不知道自己的地址，自定义域名不会提供，已验证的也不会生效（否则项目可以绑定平台自己的域名）。请设置 PUBLIC_URL（见 docs/deploy.md）。',
  /** No SITES_ORIGIN: there is no origin a domain could be served as. */
  notServedNoSitesOrigin: '平台未设置站点的独立域名（SITES_ORIGIN），自定义域名不会生效，请联系管理员。',
  /** A platform host, claimed before it was reserved. */
  /** The admin's list on an install without SITES_ORIGIN (the default). */
  adminUnavailable:
    '本平台未提供自定义域名：需要先为站点设置独立域名 SITES_ORIGIN 和平台地址 PUBLIC_URL（见 docs/deploy.md“Custom domains and HTTPS”）。在此之前，所有者的项目页不显示自定义域名卡片，也不能添加域名。',
  notServedReserved: '这个域名属于平台自身，不会作为站点的域名生效。',
  notServedNotLive: '项目当前未上线，重新上线后该域名恢复访问。',
  /** {n} */
  tooMany: '每个项目最多绑定 {n} 个自定义域名',
  alreadyOnProject: '这个项目已经添加了该域名',
  /** Verified on another project (of whichever account). */
  takenElsewhere: '该域名已被其他项目验证并使用',
  notFound: '域名不存在或已被删除',
  added: '已添加域名，请按说明设置 DNS 记录后点击“检查”',
  /** {name} the TXT record's name, {target} the CNAME target or null. */
  noRecord: '未找到 {name} 的 TXT 记录。请在域名的 DNS 中添加该记录后再检查（新记录可能需要几分钟生效）',
  /** {name}: found TXT, none with the token. */
  wrongValue: '找到了 {name} 的 TXT 记录，但值与本域名的验证码不一致，请核对后再检查',
  /** {target} */
  wrongCname: '该域名的 CNAME 指向 {found}，而不是 {target}',
  resolverUnreachable: 'DNS 服务器暂时无法访问，请稍后再检查',
  verified: '域名验证成功',
  verifiedAwaitingApproval: '域名验证成功，等待管理员批准后生效',
  alreadyVerified: '该域名已验证',
  approved: '已批准该域名',
  removed: '已删除域名',
} as const;
