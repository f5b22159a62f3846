import { REFUSAL_NAMES_SHOWN } from './limits.js';
import { archiveMessages } from './messages/archive.js';
import { authMessages } from './messages/auth.js';
import { commonMessages } from './messages/common.js';
import { deployMessages } from './messages/deploys.js';
import { domainMessages } from './messages/domains.js';
import { notificationMessages } from './messages/notifications.js';
import { projectMessages } from './messages/projects.js';
import { renderMessages } from './messages/render.js';
import { reviewMessages } from './messages/review.js';

/** The content check's words: its levels, kinds, canaries and fixes (messages/review.ts). */
export {
  CANARY_ENCODING_LABELS,
  CANARY_KIND_LABELS,
  CANARY_VIA_LABELS,
  CONTENT_CHECK_FIXES,
  CONTENT_CHECK_KIND_LABELS,
  CONTENT_CHECK_LEVEL_LABELS,
  SCRIPT_ERROR_LABELS,
  USABILITY_KINDS,
} from './messages/review.js';

/**
 * The groups on their own, for the web app's first screens: a module that names `messages` takes
 * every group into its chunk (the review's alone is 7 KB), so the code every page loads (the API
 * client, the session, the error and connection notices) imports only the groups it says
 * (docs/benchmarks.md "Web app load").
 */
export { authMessages, commonMessages };

/**
 * Every Chinese user-facing message, shared by server and web app so both say the same words.
 * Placeholders look like {name}; fill them with `format`.
 */
export const messages = {
  common: commonMessages,
  auth: authMessages,
  project: projectMessages,
  archive: archiveMessages,
  review: reviewMessages,
  deploy: deployMessages,
  render: renderMessages,
  notification: notificationMessages,
  domain: domainMessages,
} as const;

/** Replaces {key} placeholders: format('最多 {n} 个', { n: 20 }). */
export function format(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    key in values ? String(values[key]) : whole,
  );
}

/**
 * '"a.exe"、"b.php"' for a refusal naming many files; past `shown` names, '… 等 N 个文件' with N
 * the whole count.
 */
export function formatNameList(
  names: readonly string[],
  total = names.length,
  shown = REFUSAL_NAMES_SHOWN,
): string {
  const listed = names
    .slice(0, shown)
    .map((n) => `"${n}"`)
    .join('、');
  return total > shown ? `${listed} ${format(archiveMessages.moreNames, { n: total })}` : listed;
}
