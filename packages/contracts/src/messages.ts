import { archiveMessages } from './messages/archive.js';
import { authMessages } from './messages/auth.js';
import { commonMessages } from './messages/common.js';
import { projectMessages } from './messages/projects.js';
import { reviewMessages } from './messages/review.js';

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
} as const;

/** Replaces {key} placeholders: format('最多 {n} 个', { n: 20 }). */
export function format(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    key in values ? String(values[key]) : whole,
  );
}
