/**
 * Which stored file answers a decoded site path: the file itself, a directory's index, a redirect
 * that adds a directory's missing slash, or the site's own 404.html.
 */

/** The fields of a deployment_files row that serving needs. */
export interface SiteFile {
  /** NFC path relative to the site root, '/'-separated. */
  path: string;
  size: number;
  mime_type: string;
  sha256: string;
}

/** What serving knows of a deployment: its files by path (services/site-index.ts keeps these cached). */

export type SiteFileLookup = (path: string) => SiteFile | undefined | Promise<SiteFile | undefined>;

export type SiteResolution =
  | { kind: 'file'; status: 200; file: SiteFile }
  /** The site's own 404.html, to be sent with status 404. */
  | { kind: 'not-found-page'; status: 404; file: SiteFile }
  /** A directory asked without its slash; location is relative to the request ('./docs/?q'). */
  | { kind: 'redirect'; status: 302; location: string };

export interface ResolveOptions {
  /** The deployment's entry file, served at the root when it has no index.html (e.g. 'home.html'). */
  entryFile?: string | null;
  /** The request's raw query ('?a=1' or ''), kept on a redirect. */
  query?: string;
}

const INDEX_NAMES = ['index.html', 'index.htm'];
const NOT_FOUND_PAGE = '404.html';

async function firstIndex(lookup: SiteFileLookup, dir: string): Promise<SiteFile | undefined> {
  for (const name of INDEX_NAMES) {
    const file = await lookup(dir + name);
    if (file) return file;
  }
  return undefined;
}

/**
 * `path` comes from decodeSitePath. Returns null when nothing answers, not even a 404.html: the
 * caller then sends the platform's plain 404.
 */
export async function resolveSiteFile(
  lookup: SiteFileLookup,
  path: string,
  opts: ResolveOptions = {},
): Promise<SiteResolution | null> {
  if (path === '' || path.endsWith('/')) {
    let index = await firstIndex(lookup, path);
    if (!index && path === '' && opts.entryFile) index = await lookup(opts.entryFile);
    if (index) return { kind: 'file', status: 200, file: index };
  } else {
    const file = await lookup(path);
    if (file) return { kind: 'file', status: 200, file };
    if (await firstIndex(lookup, `${path}/`)) {
      // Relative to the request URL, so it works under /sites/{id}/ and /preview/{token}/ alike;
      // './' keeps a name such as 'a:b' from reading as a URL scheme.
      const name = path.slice(path.lastIndexOf('/') + 1);
      return { kind: 'redirect', status: 302, location: `./${encodeURIComponent(name)}/${opts.query ?? ''}` };
    }
  }
  const notFoundPage = await lookup(NOT_FOUND_PAGE);
  return notFoundPage ? { kind: 'not-found-page', status: 404, file: notFoundPage } : null;
}
