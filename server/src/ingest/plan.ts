/**
 * Validation of a whole listing before a byte is written: every name, the tree as a whole, each
 * file's type and size, and the totals. The same rules serve loose files (main thread) and archive
 * entries (extraction worker); see refusal.ts about imports.
 */
import type { UploadLimits } from '@sitehall/contracts';
import { checkEntryName, displayName, EntryTree, extensionOfPath, isJunk, uploadItemCount } from './names.js';
import { Refusal } from './refusal.js';

export interface ListedEntry {
  /** The name as listed: a decoded archive entry name, or a loose file's relative path. */
  name: string;
  isDir: boolean;
  /** Bytes; declared by the archive, or measured on disk for loose files. */
  size: number;
}

export interface PlannedFile {
  /** Position in the listing. */
  index: number;
  name: string;
  /** NFC, '/'-separated, before any wrapper folder is unwrapped. */
  path: string;
  size: number;
}

export interface Plan {
  files: PlannedFile[];
  /** Files dropped silently (__MACOSX/, .DS_Store, ...). */
  junk: PlannedFile[];
}

/** Throws a Refusal for the first rule the listing breaks. */
export function planUpload(entries: ListedEntry[], limits: UploadLimits, source: 'archive' | 'files'): Plan {
  if (source === 'archive' && entries.length > limits.maxArchiveEntries) {
    throw new Refusal('tooManyEntries', { n: limits.maxArchiveEntries });
  }
  const tree = new EntryTree();
  const allowed = new Set(limits.allowedExtensions.map((e) => e.toLowerCase()));
  const plan: Plan = { files: [], junk: [] };
  let declaredBytes = 0;
  entries.forEach((entry, index) => {
    const path = checkEntryName(entry.name, entry.isDir);
    tree.add(entry.isDir ? 'dir' : 'file', path, entry.name);
    if (entry.isDir) return;
    declaredBytes += entry.size;
    const file = { index, name: entry.name, path, size: entry.size };
    if (isJunk(path)) {
      plan.junk.push(file);
      return;
    }
    const name = displayName(path);
    if (!allowed.has(extensionOfPath(path))) throw new Refusal('entryTypeNotAllowed', { name });
    if (entry.size === 0) throw new Refusal('emptyFile', { name });
    if (entry.size > limits.maxFileBytes) {
      throw new Refusal('oversizedFile', { name, bytes: limits.maxFileBytes });
    }
    plan.files.push(file);
  });

  if (source === 'archive') {
    if (plan.files.length === 0) throw new Refusal('emptyArchive');
    if (declaredBytes > limits.maxArchiveUncompressedBytes) {
      throw new Refusal('tooLargeUncompressed', { bytes: limits.maxArchiveUncompressedBytes });
    }
  } else {
    if (plan.files.length === 0) throw new Refusal('noFiles');
    // A folder counts as one item (names.ts); its files are bounded by the archive entry limit.
    if (uploadItemCount(plan.files.map((f) => f.path)) > limits.maxFilesPerUpload) {
      throw new Refusal('tooManyFiles', { n: limits.maxFilesPerUpload });
    }
    if (plan.files.length > limits.maxArchiveEntries) {
      throw new Refusal('tooManyFolderFiles', { n: limits.maxArchiveEntries });
    }
    if (declaredBytes > limits.maxUploadBytes) {
      throw new Refusal('uploadTooLarge', { bytes: limits.maxUploadBytes });
    }
  }
  return plan;
}
