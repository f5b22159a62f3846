/**
 * The upload form's file rules (docs/product.md §5, docs/product.md "Uploads"): what a drop or a pick adds to the
 * chosen files, and why anything is refused. The limits come from GET /api/config/public, so what
 * is said here is what the server enforces.
 */
import {
  ARCHIVE_FORMAT_KEYS,
  ARCHIVE_FORMATS,
  archiveFormatOfExtension,
  CONTENT_CHECK_BYTES,
  extensionOf,
  FORBIDDEN_EXTENSIONS,
  format,
  formatBytes,
  messages,
  type PublicConfigDto,
  type UnknownFileTypeMode,
  type UploadType,
} from '@sitehall/contracts';

const m = messages.project;

/** A chosen file with its path relative to the dropped or picked folder ('css/app.css'). */
export interface PickedFile {
  file: File;
  path: string;
}

/** The limits the picker enforces; the same numbers the server checks. */
export interface UploadRules {
  /** Items per upload: a folder picked or dropped as a whole counts as one (uploadItemCount). */
  maxFiles: number;
  /** The most files a folder may hold (the archive entry limit). */
  maxEntries: number;
  maxFileBytes: number;
  maxUploadBytes: number;
  allowedExtensions: string[];
  /** Files of other types: kept as downloads only, skipped, or refused (the server does the same). */
  unknownFileTypes: UnknownFileTypeMode;
}

export function rulesFromConfig(config: PublicConfigDto): UploadRules {
  return {
    maxFiles: config.limits.max_files_per_upload,
    maxEntries: config.limits.max_archive_entries,
    maxFileBytes: config.limits.max_file_bytes,
    maxUploadBytes: config.limits.max_upload_bytes,
    allowedExtensions: config.allowed_extensions,
    unknownFileTypes: config.unknown_file_types,
  };
}

/** '.zip, .rar, ...' as the server's message writes the list. */
export function extensionList(extensions: readonly string[]): string {
  return extensions.map((e) => `.${e}`).join(', ');
}

/**
 * The file input's accept attribute: the allowed extensions, then the MIME types of the allowed
 * archive formats (some phones' pickers filter by type rather than by name).
 */
export function acceptAttribute(extensions: readonly string[]): string {
  const archiveTypes = ARCHIVE_FORMAT_KEYS.filter((format) =>
    ARCHIVE_FORMATS[format].extensions.some((e) => extensions.includes(e)),
  ).flatMap((format) => ARCHIVE_FORMATS[format].mimeTypes);
  return [...extensions.map((e) => `.${e}`), ...archiveTypes].join(',');
}

/** Whether a path names an archive (by its extension; the server checks the bytes). */
export function isArchivePath(path: string): boolean {
  return archiveFormatOfExtension(extensionOf(path)) !== null;
}

/** Zip when exactly one file is chosen and it is an archive; otherwise loose files (docs/product.md §4). */
export function detectUploadType(files: readonly PickedFile[]): Exclude<UploadType, 'auto'> {
  const only = files.length === 1 ? files[0] : undefined;
  return only && isArchivePath(only.path) ? 'zip' : 'files';
}

/** What a single picked archive is called on the upload screens: 压缩包（ZIP）, 压缩包（7Z）, 压缩包（RAR）. */
export function archiveLabel(files: readonly PickedFile[]): string {
  const only = files[0];
  return ARCHIVE_FORMATS[(only && archiveFormatOfExtension(extensionOf(only.path))) || 'zip'].label;
}

/**
 * How many items the files make against the files-per-upload limit: a folder picked or dropped as a
 * whole (paths sharing a first segment) is one item, like an archive; each loose file is one. The
 * server counts the same way (server/src/ingest/names.ts).
 */
export function uploadItemCount(paths: readonly string[]): number {
  return new Set(paths.map((path) => (path.indexOf('/') > 0 ? `${path.slice(0, path.indexOf('/'))}/` : path)))
    .size;
}

export function totalBytes(files: readonly PickedFile[]): number {
  return files.reduce((sum, f) => sum + f.file.size, 0);
}

/** Operating-system litter the server drops silently; it is not worth a refusal here either. */
const JUNK_NAMES = new Set(['.ds_store', 'thumbs.db', 'desktop.ini']);
export function isJunk(path: string): boolean {
  const parts = path.split('/');
  const base = parts.at(-1) ?? '';
  return parts.includes('__MACOSX') || JUNK_NAMES.has(base.toLowerCase()) || base.startsWith('._');
}

/** Same name (path), size and last-modified time: the same file chosen twice. */
function identity(f: PickedFile): string {
  return `${f.path}\u0000${f.file.size}\u0000${f.file.lastModified}`;
}

export function withRelativePath(file: File): PickedFile {
  const relative = (file as File & { webkitRelativePath?: string }).webkitRelativePath;
  return { file, path: relative || file.name };
}

/** Reads the first bytes of a file: a file the browser cannot read fails here, not mid-upload. */
async function readHead(file: File): Promise<number> {
  const head = file.slice(0, CONTENT_CHECK_BYTES);
  if (typeof head.arrayBuffer === 'function') return (await head.arrayBuffer()).byteLength;
  return new Promise<number>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve((reader.result as ArrayBuffer).byteLength);
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(head);
  });
}

/** Files under 1024 bytes are assumed readable; larger ones must give their first 1024 bytes. */
export async function isReadable(file: File): Promise<boolean> {
  if (file.size < CONTENT_CHECK_BYTES) return true;
  try {
    return (await readHead(file)) > 0;
  } catch {
    return false;
  }
}

/** One refusal message and the files it is about. */
export interface FileProblem {
  message: string;
  paths: string[];
}

export interface AddResult {
  files: PickedFile[];
  problems: FileProblem[];
}

/**
 * Adds incoming files to the chosen ones. Empty items, executables and server-side scripts, files
 * over the size limit and unreadable files are left out with a message; files of other types go
 * as the settings say (kept for download, skipped as the server would skip them, or refused);
 * duplicates are merged; a batch that would go over the file-count or total-size limit is refused
 * as a whole, since half a site is no use.
 */
export async function addFiles(
  current: readonly PickedFile[],
  incoming: readonly PickedFile[],
  rules: UploadRules,
  source: 'drop' | 'pick',
): Promise<AddResult> {
  const problems = new Map<string, string[]>();
  const refuse = (message: string, ...paths: string[]) => {
    problems.set(message, [...(problems.get(message) ?? []), ...paths]);
  };
  const allowed = new Set(rules.allowedExtensions.map((e) => e.toLowerCase()));

  const accepted: PickedFile[] = [];
  for (const item of incoming) {
    if (isJunk(item.path)) continue;
    const ext = extensionOf(item.path);
    const otherType = !allowed.has(ext) && !FORBIDDEN_EXTENSIONS.includes(ext);
    // The server drops these too: skipped types, and empty marker files (.nojekyll) of other types.
    if (
      otherType &&
      rules.unknownFileTypes !== 'refuse' &&
      (rules.unknownFileTypes === 'skip' || item.file?.size === 0)
    ) {
      continue;
    }
    if (!item.file || item.file.size === 0) {
      refuse(source === 'drop' ? m.dropInvalid : m.pickInvalid, item.path);
    } else if (FORBIDDEN_EXTENSIONS.includes(ext)) {
      refuse(m.forbiddenType, item.path);
    } else if (otherType && rules.unknownFileTypes === 'refuse') {
      refuse(format(m.unsupportedType, { list: extensionList(rules.allowedExtensions) }), item.path);
    } else if (item.file.size > rules.maxFileBytes) {
      refuse(format(m.fileTooLarge, { size: formatBytes(rules.maxFileBytes) }), item.path);
    } else if (!(await isReadable(item.file))) {
      refuse(format(m.unreadableFile, { name: item.path }), item.path);
    } else {
      accepted.push(item);
    }
  }

  const seen = new Set(current.map(identity));
  const added: PickedFile[] = [];
  for (const item of accepted) {
    const key = identity(item);
    if (seen.has(key)) continue;
    seen.add(key);
    added.push(item);
  }

  let files = [...current, ...added];
  if (uploadItemCount(files.map((f) => f.path)) > rules.maxFiles) {
    refuse(
      `${format(m.tooManyFiles, { n: rules.maxFiles })}。${m.tooManyFilesHint}`,
      ...added.map((f) => f.path),
    );
    files = [...current];
  } else if (files.length > rules.maxEntries) {
    refuse(format(m.tooManyFolderFiles, { n: rules.maxEntries }), ...added.map((f) => f.path));
    files = [...current];
  } else if (totalBytes(files) > rules.maxUploadBytes) {
    refuse(
      format(m.uploadTooLarge, { size: formatBytes(rules.maxUploadBytes) }),
      ...added.map((f) => f.path),
    );
    files = [...current];
  }

  return {
    files: inListOrder(files),
    problems: [...problems].map(([message, paths]) => ({ message, paths })),
  };
}

const byName = new Intl.Collator('zh-CN', { numeric: true, sensitivity: 'base' });
const isIndexPage = (path: string) => /(^|\/)index\.html?$/i.test(path);
const depthOf = (path: string) => path.split('/').length;

/**
 * The chosen files as the list shows them: the home page (the index.html nearest the root) first,
 * then by path in natural order (p2 before p10), not in the order a folder's reader gave them.
 */
export function inListOrder(files: readonly PickedFile[]): PickedFile[] {
  const homeDepth = Math.min(...files.filter((f) => isIndexPage(f.path)).map((f) => depthOf(f.path)));
  const rank = (f: PickedFile) => (isIndexPage(f.path) && depthOf(f.path) === homeDepth ? 0 : 1);
  return [...files].sort((a, b) => rank(a) - rank(b) || byName.compare(a.path, b.path));
}

/* ---- Drag and drop: folders arrive as directory entries to walk. ---- */

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** A directory reader hands out its entries in batches (100 in Chromium) until an empty one. */
async function childrenOf(entry: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = entry.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

/** Every file under an entry, with its path from the dropped item ('site/css/app.css'). */
export async function walkEntry(entry: FileSystemEntry, prefix = ''): Promise<PickedFile[]> {
  const path = `${prefix}${entry.name}`;
  if (entry.isFile) return [{ file: await fileOf(entry as FileSystemFileEntry), path }];
  if (!entry.isDirectory) return [];
  const found: PickedFile[] = [];
  for (const child of await childrenOf(entry as FileSystemDirectoryEntry)) {
    found.push(...(await walkEntry(child, `${path}/`)));
  }
  return found;
}

/**
 * The files of a drop: folders walked recursively, loose files as they are. The items must be
 * read before the drop handler returns (the browser empties them afterwards), so the entries are
 * taken first and walked after.
 */
export async function filesFromDataTransfer(data: DataTransfer): Promise<PickedFile[]> {
  const items = data.items ? Array.from(data.items).filter((item) => item.kind === 'file') : [];
  if (items.length === 0) return Array.from(data.files ?? []).map(withRelativePath);

  const sources = items.map((item) => ({
    entry: typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null,
    file: item.getAsFile(),
  }));
  const found: PickedFile[] = [];
  for (const { entry, file } of sources) {
    if (entry) found.push(...(await walkEntry(entry)));
    else if (file) found.push(withRelativePath(file));
  }
  return found;
}

/** The multipart body of an upload: text fields first, then each file under its relative path. */
export function uploadFormData(
  files: readonly PickedFile[],
  fields: { project_name?: string; description?: string; site_name?: string; spa_fallback?: boolean },
): FormData {
  const form = new FormData();
  if (fields.spa_fallback) form.append('spa_fallback', 'true');
  if (fields.project_name !== undefined) form.append('project_name', fields.project_name.trim());
  if (fields.description !== undefined) form.append('description', fields.description.trim());
  if (fields.site_name !== undefined) form.append('site_name', fields.site_name.trim());
  form.append('upload_type', detectUploadType(files));
  for (const { file, path } of files) form.append('files', file, path);
  return form;
}
