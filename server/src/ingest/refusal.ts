/**
 * Why an upload is refused, as plain data: thrown inside the extraction worker, sent across the
 * thread boundary and turned into an IngestError (with its Chinese message) by index.ts. This
 * module imports contracts for types only, because the worker loads no workspace package at run
 * time (under Vitest the contracts package is not built).
 */
import type { messages } from '@sitehall/contracts';

/** A key of messages.archive, or one of the upload messages of messages.project. */
export type RefusalReason =
  | keyof typeof messages.archive
  | 'emptyFile'
  | 'unreadableFile'
  | 'tooManyFiles'
  | 'tooManyFolderFiles'
  | 'uploadTooLarge'
  | 'noFiles';

/** Placeholder values; `bytes` becomes {size} and the allowed list becomes {list} in index.ts. */
export interface RefusalValues {
  name?: string;
  n?: number;
  bytes?: number;
}

/** Reasons that are about size or count limits answer 413; every other refusal is a 400. */
const LIMIT_REASONS: ReadonlySet<RefusalReason> = new Set<RefusalReason>([
  'tooManyEntries',
  'tooLargeUncompressed',
  'oversizedFile',
  'tooManyFiles',
  'tooManyFolderFiles',
  'uploadTooLarge',
]);

export class Refusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    readonly values: RefusalValues = {},
  ) {
    super(`upload refused: ${reason}`);
    this.name = 'Refusal';
  }

  get status(): 400 | 413 {
    return LIMIT_REASONS.has(this.reason) ? 413 : 400;
  }
}

export interface RefusalData {
  reason: RefusalReason;
  values: RefusalValues;
}
