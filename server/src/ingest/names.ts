/**
 * The naming rules every uploaded path obeys, whether it is a loose file's relative path or an
 * entry inside an archive: no way out of the site's folder, no invisible or control characters,
 * bounded length and depth, and no two paths that a case-insensitive or Unicode-normalising file
 * system (or a person reading a URL) would take for the same one. Runs inside the extraction
 * worker too, so it imports contracts for types only (see refusal.ts).
 */
import { Refusal } from './refusal.js';

const MAX_FOLDER_DEPTH = 32;
const MAX_COMPONENT_BYTES = 255;
const MAX_PATH_BYTES = 1024;

/**
 * C0/C1 controls, the replacement character a failed decoding leaves behind, and lone surrogates.
 */
const FORBIDDEN_CHARS =
  /[\u0000-\u001f\u007f-\u009f\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;
/**
 * Characters that make a name look like another one (docs/decisions/uploads.md "File names"): every
 * format character (Unicode Cf: the zero-width space, joiners and non-joiner, the bidirectional
 * marks, embeddings, overrides and isolates, the word joiner, soft hyphen, BOM, tags...), the
 * line and paragraph separators, and letters that draw nothing (the combining grapheme joiner,
 * Hangul fillers, Khmer inherent vowels). `index\u200b.html` reads as `index.html`, and
 * `evil\u202elmth.txt` as `eviltxt.html`.
 */
const INVISIBLE_CHARS = /[\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u17b4\u17b5\u3164\uffa0]|\u034f/u;
const ESCAPED_IN_MESSAGES =
  /[\u0000-\u001f\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u17b4\u17b5\u3164\uffa0]|\u034f/gu;
const DRIVE_LETTER = /^[A-Za-z]:/;

/** A name fit to quote in a message: invisible characters shown as \u escapes, long names cut. */
export function displayName(name: string): string {
  const visible = name.replace(ESCAPED_IN_MESSAGES, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return visible.length > 200 ? `${visible.slice(0, 200)}…` : visible;
}

/**
 * The extension, lower case, without the dot. The same rule as contracts' extensionOf, which the
 * worker cannot import at run time.
 */
export function extensionOfPath(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

const JUNK_FILES = new Set(['.ds_store', 'thumbs.db', 'desktop.ini']);

/**
 * Operating-system litter dropped silently: macOS resource forks (__MACOSX/ and AppleDouble
 * "._name" files, which would otherwise fail the content check of their extension), Finder and
 * Explorer metadata.
 */
export function isJunk(path: string): boolean {
  const parts = path.split('/');
  const base = parts[parts.length - 1] ?? '';
  return parts.includes('__MACOSX') || JUNK_FILES.has(base.toLowerCase()) || base.startsWith('._');
}

/**
 * Printable ASCII only: no character any rule below about invisible or control characters,
 * normalisation or byte length looks for (a build's output is almost always named so).
 */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/**
 * Checks one path as listed (an archive entry's decoded name, or a loose file's relative path)
 * and returns it in NFC without a trailing slash. Directory entries may end in '/'. The name is
 * made fit to show (displayName) only for a refusal: a 5,000-file listing is checked twice per
 * digest deploy and once per archive.
 */
export function checkEntryName(name: string, isDir: boolean): string {
  const refuse = (reason: 'pathTraversal' | 'invisibleName' | 'badName' | 'nameTooLong' | 'tooDeep') =>
    new Refusal(reason, { name: displayName(name) });
  if (name.includes('\\') || name.startsWith('/') || DRIVE_LETTER.test(name)) throw refuse('pathTraversal');
  const trimmed = isDir && name.endsWith('/') ? name.slice(0, -1) : name;
  const parts = trimmed.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) throw refuse('pathTraversal');
  const ascii = PLAIN_ASCII.test(trimmed);
  if (!ascii && INVISIBLE_CHARS.test(trimmed)) throw refuse('invisibleName');
  // ':' is a drive or an NTFS stream on Windows, and 'a:b.html' in a page is read as a URL scheme.
  if (
    (!ascii && FORBIDDEN_CHARS.test(trimmed)) ||
    trimmed.includes(':') ||
    parts.some((p) => p.trim() === '')
  ) {
    throw refuse('badName');
  }
  // Printable ASCII is its own NFC form, one byte a character.
  const path = ascii ? trimmed : trimmed.normalize('NFC');
  const bytes = (text: string) => (ascii ? text.length : Buffer.byteLength(text));
  for (const form of ascii ? [trimmed] : [trimmed, path]) {
    if (bytes(form) > MAX_PATH_BYTES) throw refuse('nameTooLong');
    for (const part of form.split('/')) {
      if (bytes(part) > MAX_COMPONENT_BYTES) throw refuse('nameTooLong');
    }
  }
  const folders = isDir ? parts.length : parts.length - 1;
  if (folders > MAX_FOLDER_DEPTH) throw refuse('tooDeep');
  return path;
}

interface TreeNode {
  kind: 'file' | 'dir';
  /** NFC path, for messages. */
  path: string;
  /** The path as listed, so that two folders differing only by normalisation are told apart. */
  listed: string;
}

/**
 * Every file and folder of an upload, folded by case after NFC: refuses duplicates, names that
 * differ only by case or normalisation, and a path that is both a file and a folder.
 */
export class EntryTree {
  readonly #nodes = new Map<string, TreeNode>();

  /** `path` is checkEntryName's result for `listed` (without its trailing slash). */
  add(kind: 'file' | 'dir', path: string, listed: string): void {
    const pathParts = path.split('/');
    const listedParts = listed.split('/');
    for (let i = 1; i < pathParts.length; i++) {
      this.#addNode('dir', pathParts.slice(0, i).join('/'), listedParts.slice(0, i).join('/'));
    }
    this.#addNode(kind, path, listedParts.slice(0, pathParts.length).join('/'));
  }

  #addNode(kind: 'file' | 'dir', path: string, listed: string): void {
    const key = path.toLowerCase();
    const existing = this.#nodes.get(key);
    if (!existing) {
      this.#nodes.set(key, { kind, path, listed });
      return;
    }
    if (existing.kind !== kind) throw new Refusal('fileFolderClash', { name: displayName(path) });
    // The same folder seen again (implied by its files, or listed twice) is fine; anything else clashes.
    if (kind === 'file' || existing.listed !== listed) {
      throw new Refusal('duplicateName', { name: displayName(path) });
    }
  }
}

/**
 * How many items a loose upload holds against the files-per-upload limit: a folder picked or
 * dropped as a whole (its files' paths share a first segment, 'site/css/a.css') counts as one
 * item, like an archive; each loose file counts as one. The web app counts the same way
 * (web/src/lib/upload-files.ts); the entry and byte limits still apply to every file.
 */
export function uploadItemCount(paths: Iterable<string>): number {
  const items = new Set<string>();
  for (const path of paths) {
    const slash = path.indexOf('/');
    items.add(slash > 0 ? `${path.slice(0, slash)}/` : path);
  }
  return items.size;
}
