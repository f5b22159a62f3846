/**
 * What a service keeps of the request that asked (for the audit log, sessions and login limits):
 * taken from the request by the HTTP layer (`metaOf` in http/reply.ts), so services never see one.
 */
export interface RequestMeta {
  /** The client's address (behind a trusted proxy, the one it reports). */
  ip: string;
  userAgent?: string;
}

/** What a page view tells the owner's analytics: the site file served, the Referer, the Host. */
export interface PageView {
  path: string;
  referer: string | undefined;
  host: string | undefined;
}
