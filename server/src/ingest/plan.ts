/**
 * Validation of a whole listing before a byte is written: every name, the tree as a whole, each
 * file's type and size, and the totals. The same rules serve loose files (main thread) and archive
 * entries (extraction worker); see refusal.ts about imports.
 */

import { unreadActiveType } from './media-type.js';
import { checkEntryName, displayName, EntryTree, extensionOfPath, isJunk, uploadItemCount } from './names.js';
import { type IngestLimits, NAMES_KEPT, Refusal, RefusedNames } from './refusal.js';

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
  /** Of a type that is not web content: stored and served as a download only. */
  downloadOnly: boolean;
}

export interface Plan {
  files: PlannedFile[];
  /** Files dropped silently (__MACOSX/, .DS_Store, ..., and other types when the settings skip them). */
  junk: PlannedFile[];
}

/**
 * Where a listing comes from: an archive's entries, the files a person picked or dropped in the web
 * app (loose files, with folders' relative paths), or a digest deploy's manifest (a build's output
 * folder, checked like loose files).
 */
export type ListingSource = 'archive' | 'files' | 'deploy';

/**
 * Throws a Refusal for the first rule the listing breaks; forbidden files (and, when the settings
 * refuse them, files of other types) are named all at once. An empty web file is part of a site as
 * shipped (VitePress writes vp-icons.css empty) and is kept; only a file picked on its own (a loose
 * file outside any folder) is refused when empty, as the upload form says.
 */
export function planUpload(entries: ListedEntry[], limits: IngestLimits, source: ListingSource): Plan {
  if (source === 'archive' && entries.length > limits.maxArchiveEntries) {
    throw new Refusal('tooManyEntries', { n: limits.maxArchiveEntries });
  }
  const tree = new EntryTree();
  const allowed = new Set(limits.allowedExtensions.map((e) => e.toLowerCase()));
  const forbidden = new Set(limits.forbiddenExtensions);
  const executables = new RefusedNames('executable');
  const unknownTypes = new RefusedNames('entryTypeNotAllowed');
  const plan: Plan = { files: [], junk: [] };
  let declaredBytes = 0;
  entries.forEach((entry, index) => {
    const path = checkEntryName(entry.name, entry.isDir);
    tree.add(entry.isDir ? 'dir' : 'file', path, entry.name);
    if (entry.isDir) return;
    declaredBytes += entry.size;
    const ext = extensionOfPath(path);
    const known = allowed.has(ext);
    // Allowed, but of a type the content check would not read under this extension: a download.
    const file = {
      index,
      name: entry.name,
      path,
      size: entry.size,
      downloadOnly: !known || unreadActiveType(ext),
    };
    if (isJunk(path)) {
      plan.junk.push(file);
      return;
    }
    // Made fit to show only for a refusal (most listings have none).
    const name = () => displayName(path);
    if (forbidden.has(ext)) {
      executables.add(name());
      return;
    }
    if (!known && limits.unknownFileTypes === 'refuse') {
      unknownTypes.add(name());
      return;
    }
    // An empty file of another type (.nojekyll, .gitkeep) is a marker for some other tool.
    if (file.downloadOnly && (limits.unknownFileTypes === 'skip' || entry.size === 0)) {
      plan.junk.push(file);
      return;
    }
    if (entry.size === 0 && source === 'files' && !path.includes('/'))
      throw new Refusal('emptyFile', { name: name() });
    if (entry.size > limits.maxFileBytes) {
      throw new Refusal('oversizedFile', { name: name(), bytes: limits.maxFileBytes });
    }
    plan.files.push(file);
  });
  executables.throwIfAny();
  unknownTypes.throwIfAny();

  // Files there were, but none to publish: say which were skipped, not that there were none.
  if (plan.files.length === 0 && plan.junk.length > 0) {
    const names = plan.junk.slice(0, NAMES_KEPT).map((f) => displayName(f.path));
    throw new Refusal('onlySkipped', { names, n: plan.junk.length });
  }
  if (source === 'archive') {
    if (plan.files.length === 0) throw new Refusal('emptyArchive');
    if (declaredBytes > limits.maxArchiveUncompressedBytes) {
      throw new Refusal('tooLargeUncompressed', { bytes: limits.maxArchiveUncompressedBytes });
    }
  } else {
    if (plan.files.length === 0) throw new Refusal('noFiles');
    // A folder counts as one item (names.ts); its files are bounded by the archive entry limit. A
    // digest deploy is one folder, the build's output, whatever lies at its root: one item
    // (docs/decisions/uploads.md "A folder counts as one item").
    if (source === 'files' && uploadItemCount(plan.files.map((f) => f.path)) > limits.maxFilesPerUpload) {
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
