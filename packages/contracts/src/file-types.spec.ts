/** FILE_TYPES holds together: every type is complete, and the lists derived from it agree with it. */
import { describe, expect, it } from 'vitest';
import { ARCHIVE_EXTENSIONS, ARCHIVE_FORMATS } from './archive-formats.js';
import { FILE_TYPE_GROUPS, FILE_TYPES, type FileType, fileTypeOf, fileTypesWhere } from './file-types.js';
import {
  EXTENSION_PATTERN,
  EXTRA_EXTENSIONS,
  FORBIDDEN_EXTENSIONS,
  SPEC_EXTENSIONS,
  WEB_FILE_TYPES,
} from './limits.js';

const entries = Object.entries(FILE_TYPES as Record<string, FileType>);

describe('FILE_TYPES', () => {
  it.each(entries)('%s: a well-formed type an admin could allow', (ext, type) => {
    expect(ext).toMatch(EXTENSION_PATTERN);
    expect(FORBIDDEN_EXTENSIONS).not.toContain(ext);
    expect(type.mime).toMatch(/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/);
    expect(Object.keys(FILE_TYPE_GROUPS)).toContain(type.group);
    // What the check scans and the review shows as source is read as text.
    if (type.scan !== null || type.source) expect(type.text).toBe(true);
    expect(fileTypeOf(ext)).toBe(type);
  });

  it('is the list of web types, the spec’s first, then the rest in the table’s order', () => {
    expect([...WEB_FILE_TYPES].sort()).toEqual(Object.keys(FILE_TYPES).sort());
    expect(WEB_FILE_TYPES.slice(0, SPEC_EXTENSIONS.length)).toEqual([...SPEC_EXTENSIONS]);
    expect(EXTRA_EXTENSIONS).toEqual(
      Object.keys(FILE_TYPES).filter((ext) => !SPEC_EXTENSIONS.includes(ext as never)),
    );
    expect(new Set(WEB_FILE_TYPES).size).toBe(WEB_FILE_TYPES.length);
  });

  it('groups the archives as ARCHIVE_FORMATS names them, with one of their MIME types', () => {
    const archives = fileTypesWhere((type) => type.group === 'archive');
    expect([...archives].sort()).toEqual([...ARCHIVE_EXTENSIONS].sort());
    const mimes = Object.values(ARCHIVE_FORMATS).flatMap((f) => [...f.mimeTypes]);
    for (const ext of archives) expect(mimes).toContain(FILE_TYPES[ext as keyof typeof FILE_TYPES].mime);
  });

  it('knows nothing outside the table', () => {
    expect(fileTypeOf('exe')).toBeUndefined();
    expect(fileTypeOf('toString')).toBeUndefined();
    expect(fileTypeOf('constructor')).toBeUndefined();
  });
});
