/**
 * The rules of names as plain functions, without zod: the schemas (schemas/site-names.ts,
 * schemas/projects.ts) apply them on the server and in the web app, and the CLI, which installs
 * without dependencies, checks its arguments with them before it reads a file.
 */
import { PROJECT_NAME_MAX, PROJECT_NAME_MIN } from './limits.js';
import { projectMessages as m } from './messages/projects.js';
import { format } from './messages.js';
import { drawsAsStored } from './schemas/look-alike.js';
import { PREVIEW_HOST_LABEL } from './site-urls.js';

/**
 * The Chinese refusal of a project name (trimmed first, as the API does), or null when it may be
 * used. The same rules as the `projectName` schema (names.spec.ts holds them together).
 */
export function projectNameProblem(raw: string): string | null {
  const name = raw.trim();
  if (name.length === 0) return m.nameRequired;
  if (name.length < PROJECT_NAME_MIN) return m.nameTooShort;
  if (name.length > PROJECT_NAME_MAX) return m.nameTooLong;
  if (!drawsAsStored(name)) return m.nameInvalid;
  return null;
}

export const SITE_NAME_MIN = 3;
/** Within a DNS label's 63, with room for nothing else: a name is one label of the sites host. */
export const SITE_NAME_MAX = 40;
/** How long a renamed site's old name keeps leading to it (and stays its own); then anyone may take it. */
export const SITE_NAME_HOLD_DAYS = 30;
/**
 * Names one account's sites may give up by renaming within SITE_NAME_HOLD_DAYS: each stays theirs
 * for that long, so renames without end would hold every name (docs/decisions/names.md). The names
 * of its deleted sites count too; a site deleted past the limit gives its name back at once.
 */
export const SITE_NAME_RENAMES_MAX = 10;

/**
 * Names that would read as the platform's own (a host, a page, an address people trust) or as
 * infrastructure. Compared by skeleton, so `a-p-i` and `adm1n`'s kind are caught too.
 */
export const RESERVED_SITE_NAMES: readonly string[] = [
  'www',
  'admin',
  'administrator',
  'api',
  'static',
  'sites',
  'site',
  'assets',
  'cli',
  'mail',
  'email',
  'smtp',
  'imap',
  'pop',
  'pop3',
  'ftp',
  'sftp',
  'ssh',
  'git',
  'dns',
  'ns',
  'ns1',
  'ns2',
  'mx',
  'vpn',
  'app',
  'apps',
  'dashboard',
  'console',
  'login',
  'logout',
  'signin',
  'signup',
  'register',
  'auth',
  'oauth',
  'sso',
  'account',
  'accounts',
  'user',
  'users',
  'profile',
  'preview',
  'previews',
  'cdn',
  'media',
  'img',
  'images',
  'files',
  'upload',
  'uploads',
  'download',
  'downloads',
  'docs',
  'help',
  'support',
  'status',
  'blog',
  'dev',
  'test',
  'staging',
  'prod',
  'beta',
  'localhost',
  'root',
  'sitehall',
  'security',
  'billing',
  'webmail',
  'autoconfig',
  'autodiscover',
  'abuse',
  'postmaster',
  'hostmaster',
  'webmaster',
  'noreply',
  'official',
  'system',
  'server',
  'proxy',
  'cache',
  'metrics',
  'health',
  'healthz',
  'readyz',
  'openapi',
  'thumbnails',
  'notifications',
  'config',
  'public',
  'private',
  'internal',
  'review',
  'showcase',
  'home',
  'index',
  'example',
  'wpad',
  'isatap',
];

const SHAPE = /^[a-z][a-z0-9-]*$/;

/**
 * What a name looks like to a reader, after Unicode's confusable skeletons (UTS #39) narrowed to the
 * characters a name may hold: hyphens dropped, `0` as `o`, `1` as `l`, `rn` as `m`, `vv` as `w`.
 * `my-club`, `myc1ub` and `rnyclub` are all `myclub`.
 */
export function siteNameSkeleton(name: string): string {
  return name
    .toLowerCase()
    .replace(/-/g, '')
    .replace(/0/g, 'o')
    .replace(/1/g, 'l')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w');
}

const RESERVED_SKELETONS = new Set(RESERVED_SITE_NAMES.map(siteNameSkeleton));

/**
 * The skeleton of `p` and a number (the numeric `p17` hosts of unnamed sites): `p17`, and what
 * reads as it (`p-17`, `pl7`, `p1-7`), whose skeletons are the same.
 */
const NUMBERED_HOST_SKELETON = /^p[l2-9][ol2-9]*$/;

/** A reserved word, `p` and digits (both by skeleton: what reads as one is one), or a preview's label. */
export function isReservedSiteName(name: string): boolean {
  const skeleton = siteNameSkeleton(name);
  return (
    /^p[0-9]+$/.test(name) ||
    NUMBERED_HOST_SKELETON.test(skeleton) ||
    RESERVED_SKELETONS.has(skeleton) ||
    PREVIEW_HOST_LABEL.test(name)
  );
}

/** The Chinese refusal of a name's form, or null when it may be asked for (taken or not). */
export function siteNameProblem(name: string): string | null {
  if (name.length < SITE_NAME_MIN) return m.siteNameTooShort;
  if (name.length > SITE_NAME_MAX) return m.siteNameTooLong;
  if (!SHAPE.test(name) || name.endsWith('-') || name.includes('--')) return m.siteNameInvalid;
  if (isReservedSiteName(name)) return format(m.siteNameReserved, { name });
  return null;
}
