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
/** Lone surrogates too: no text draws them (a name 7-Zip could not decode holds them). */
const ESCAPED_IN_MESSAGES =
  /[\u0000-\u001f\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u17b4\u17b5\u3164\uffa0\ud800-\udfff]|\u034f/gu;
const DRIVE_LETTER = /^[A-Za-z]:/;

/** A name fit to quote in a message: invisible characters shown as \u escapes, long names cut. */
export function displayName(name: string): string {
  const visible = name.replace(ESCAPED_IN_MESSAGES, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  if (visible.length <= 200) return visible;
  // Not between the halves of a pair (an emoji): the cut would leave a lone one.
  const cut = /[\ud800-\udbff]/.test(visible.charAt(199)) ? 199 : 200;
  return `${visible.slice(0, cut)}…`;
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

/**
 * An archive entry's name without the "./" it starts with in an archive made of a folder's "." by
 * bsdtar, which is Windows' own `tar.exe` (`tar -a -c -f site.zip .` in the site's folder): its
 * zips and 7z archives list `./index.html`, and the folder itself as `./` or `.`, whose name comes
 * back empty (the archive's root: the caller skips the entry). Only at the start: `a/./b.html`
 * stays refused, as any "." segment is (checkEntryName; docs/decisions/uploads.md "Archives made
 * of a folder's dot").
 */
export function withoutLeadingDot(name: string, isDir: boolean): string {
  let rest = name;
  while (rest.startsWith('./')) rest = rest.slice(2);
  if (rest === '.') rest = '';
  // A file named '.' keeps its name, and is refused as unsafe with it (checkEntryName).
  return rest === '' && !isDir ? name : rest;
}

const JUNK_FILES = new Set(['.ds_store', 'thumbs.db', 'desktop.ini']);

/**
 * Operating-system litter dropped silently: macOS resource forks (__MACOSX/ and AppleDouble
 * "._name" files, which would otherwise fail the content check of their extension), Finder and
 * Explorer metadata.
 */
export function isJunk(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  // The folder's name looked for among the segments only where the text holds it (rarely).
  return (
    (path.includes('__MACOSX') && path.split('/').includes('__MACOSX')) ||
    JUNK_FILES.has(base.toLowerCase()) ||
    base.startsWith('._')
  );
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
  if (ascii) {
    // The path is the name as listed, and its parts are those split above.
    if (trimmed.length > MAX_PATH_BYTES) throw refuse('nameTooLong');
    for (const part of parts) if (part.length > MAX_COMPONENT_BYTES) throw refuse('nameTooLong');
  } else {
    for (const form of [trimmed, path]) {
      if (Buffer.byteLength(form) > MAX_PATH_BYTES) throw refuse('nameTooLong');
      for (const part of form.split('/')) {
        if (Buffer.byteLength(part) > MAX_COMPONENT_BYTES) throw refuse('nameTooLong');
      }
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
 * Every file and folder of an upload, folded by case after NFC (sameNameKey): refuses duplicates,
 * names that differ only by case, normalisation or blanks and dots at an end, and a path that is
 * both a file and a folder.
 */
export class EntryTree {
  readonly #nodes = new Map<string, TreeNode>();
  /**
   * Folders added by a path listed as it is kept (listed === path): with all their parents, each
   * also so. A file of such a folder adds only itself: adding its folders again would change
   * nothing (each is there, of the same kind and listing), and a listing of thousands of files in a
   * few folders did that for every file.
   */
  readonly #plainFolders = new Set<string>();

  /** `path` is checkEntryName's result for `listed` (without its trailing slash). */
  add(kind: 'file' | 'dir', path: string, listed: string): void {
    if (listed === path || listed === `${path}/`) {
      const parent = path.lastIndexOf('/');
      if (parent > 0 && !this.#plainFolders.has(path.slice(0, parent))) {
        for (let cut = path.indexOf('/'); cut > 0; cut = path.indexOf('/', cut + 1)) {
          const folder = path.slice(0, cut);
          if (this.#plainFolders.has(folder)) continue;
          this.#addNode('dir', folder, folder);
          this.#plainFolders.add(folder);
        }
      }
      this.#addNode(kind, path, path);
      if (kind === 'dir') this.#plainFolders.add(path);
      return;
    }
    const pathParts = path.split('/');
    const listedParts = listed.split('/');
    for (let i = 1; i < pathParts.length; i++) {
      this.#addNode('dir', pathParts.slice(0, i).join('/'), listedParts.slice(0, i).join('/'));
    }
    this.#addNode(kind, path, listedParts.slice(0, pathParts.length).join('/'));
  }

  #addNode(kind: 'file' | 'dir', path: string, listed: string): void {
    const key = sameNameKey(path);
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
 * A blank at either end of a segment, or a dot or blank at its end: what Windows drops from a name
 * (`index.html.` and `index.html ` are `index.html` there) and a page's file list does not show
 * (` index.html` reads as `index.html`). Without one, a path is its own key but for case.
 */
const LOOSE_EDGE = /(?:^|\/)\s|[\s.](?:\/|$)/u;

/**
 * The key two paths share when a case-insensitive file system, Windows or a person reading the
 * list would take them for one (docs/decisions/uploads.md "Names that differ only at an end"):
 * lower case, and each segment without the blanks at its ends and the dots at its end.
 */
function sameNameKey(path: string): string {
  const lower = path.toLowerCase();
  return LOOSE_EDGE.test(lower) ? lower.split('/').map(withoutLooseEdges).join('/') : lower;
}

function withoutLooseEdges(segment: string): string {
  let rest = segment.trimStart();
  for (;;) {
    const trimmed = rest.trimEnd();
    const shorter = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
    if (shorter === rest) return rest;
    rest = shorter;
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
