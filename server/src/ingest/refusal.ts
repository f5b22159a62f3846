/**
 * Why an upload is refused, as plain data: thrown inside the extraction worker, sent across the
 * thread boundary and turned into an IngestError (with its Chinese message) by index.ts. This
 * module imports contracts for types only: the worker loads nothing of contracts but its
 * file-types module (the index's messages come with its schemas, ≈180 ms of a new worker's CPU).
 */
import type { messages, UploadLimits } from '@sitehall/contracts';

/** A key of messages.archive, or one of the upload messages of messages.project. */
export type RefusalReason =
  | keyof typeof messages.archive
  | 'emptyFile'
  | 'unreadableFile'
  | 'tooManyFiles'
  | 'tooManyFolderFiles'
  | 'uploadTooLarge'
  | 'noFiles';

/**
 * Placeholder values; `bytes` becomes {size}, `names` (with `n` the whole count) becomes {names}
 * and the allowed list becomes {list} in index.ts.
 */
export interface RefusalValues {
  name?: string;
  names?: string[];
  n?: number;
  bytes?: number;
}

/**
 * The upload limits with the forbidden extensions, which the worker cannot import from contracts
 * at run time: index.ts adds them before a job crosses the thread boundary.
 */
export type IngestLimits = UploadLimits & { forbiddenExtensions: readonly string[] };

/** What kind of refusal (domain/errors.ts) a reason is. */
export type RefusalKind = 'invalid' | 'too_large';

/** Reasons that are about size or count limits are "too large"; every other refusal is "invalid". */
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

  get kind(): RefusalKind {
    return LIMIT_REASONS.has(this.reason) ? 'too_large' : 'invalid';
  }
}

export interface RefusalData {
  reason: RefusalReason;
  values: RefusalValues;
}

/** How many names a refusal carries (contracts' REFUSAL_NAMES_SHOWN; see the header). */
export const NAMES_KEPT = 20;

/**
 * Files that refuse an upload together (executables; types the settings refuse): every one is
 * noted, so that the refusal names them all at once instead of the first.
 */
export class RefusedNames {
  readonly #names: string[] = [];
  #count = 0;

  constructor(readonly reason: 'executable' | 'entryTypeNotAllowed') {}

  add(name: string): void {
    this.#count++;
    if (this.#names.length < NAMES_KEPT) this.#names.push(name);
  }

  /** Runs a check, noting (not throwing) a refusal of this kind. */
  check<T>(run: () => T): T | undefined {
    try {
      return run();
    } catch (err) {
      if (!(err instanceof Refusal) || err.reason !== this.reason) throw err;
      for (const name of err.values.names ?? [err.values.name ?? '']) this.add(name);
      return undefined;
    }
  }

  throwIfAny(): void {
    if (this.#count > 0) throw new Refusal(this.reason, { names: this.#names, n: this.#count });
  }
}
