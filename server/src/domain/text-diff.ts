/**
 * The types the review shows as text (FILE_TYPES `source`, as its source view): the version diff's
 * `text` flag (presenters/review.ts) and what the file diff answers (services/file-diff.ts).
 */
import { fileTypesWhere } from '@sitehall/contracts';

export const TEXT_DIFF_TYPES: ReadonlySet<string> = new Set(fileTypesWhere((type) => type.source));
