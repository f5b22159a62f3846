export { ByteLru } from './byte-lru.js';
export {
  attachmentDisposition,
  contentTypeHeader,
  isCompressible,
  isHtml,
  isInlineWebContent,
} from './content-types.js';
export { CustomDomainHosts, customDomainOfHost } from './custom-domain-hosts.js';
export {
  acceptedEncodings,
  type ContentEncoding,
  etagFor,
  ifRangeAllows,
  isNotModified,
  parseRange,
} from './http-conditions.js';
export {
  type ResolveOptions,
  resolveSiteFile,
  type SiteFile,
  type SiteFileLookup,
  type SiteResolution,
} from './resolve.js';
export {
  type SendSiteFileOptions,
  type SiteBody,
  sendSiteFile,
  sendSitePage,
  sendSiteRedirect,
} from './send.js';
export {
  type PreparedAnswer,
  preparedAnswer,
  previewGonePage,
  SITE_GONE_WORKER,
  SITE_NOT_FOUND_TEXT,
  type SiteAnswer,
  type SiteAnswerBody,
  type SiteAnswerOptions,
  type SiteFileRequest,
  type SitePlatformPage,
  siteFileAnswer,
  siteNotFoundPage,
  sitePlatformPage,
} from './site-answer.js';
export { type EncodedBody, SiteFileSource, type SiteFileSourceOptions } from './site-file-source.js';
export {
  registerSiteSecurityHeaders,
  SITE_SANDBOX_CSP,
  type SiteIsolation,
  siteHeadersForUrl,
  siteSecurityHeaders,
} from './site-headers.js';
export { type RequestHost, type SiteHostOptions, SiteHosts } from './site-hosts.js';
export { decodeSitePath, isSiteContentPath, type SiteArea, type SiteUrl, splitSiteUrl } from './site-path.js';
export {
  type DeploymentIndex,
  decideSiteRequest,
  type ServedSite,
  type SiteDecision,
  type SiteRequestContext,
  type SiteRouting,
} from './site-request.js';
export {
  type CompiledSiteRules,
  compileSiteRules,
  SITE_RULES_LIMITS,
  SiteRulesError,
  type SiteRulesText,
  withSiteHeaders,
} from './site-rules.js';
