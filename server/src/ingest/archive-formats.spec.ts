import { ARCHIVE_FORMAT_KEYS, ARCHIVE_FORMATS, archiveFormatOfBytes } from '@sitehall/contracts';
import { describe, expect, it } from 'vitest';
import { archiveFormatOf } from './content.js';

// The extraction worker repeats the archive signatures (it loads nothing of contracts but its
// file-types module): this holds its copy equal to contracts' ARCHIVE_FORMATS, iterating the
// table so a new format is covered.
describe('archive detection in the worker and in contracts', () => {
  it.each(ARCHIVE_FORMAT_KEYS)('both read %s from each of its signatures', (format) => {
    for (const signature of ARCHIVE_FORMATS[format].signatures) {
      const head = Buffer.from([...signature, 0, 0, 0, 0]);
      expect(archiveFormatOfBytes(head)).toBe(format);
      expect(archiveFormatOf(head)).toBe(format);
    }
  });

  it('both find no archive in other bytes or a cut-off signature', () => {
    for (const head of [Buffer.from('<html>'), Buffer.from('PK'), Buffer.alloc(0)]) {
      expect(archiveFormatOfBytes(head)).toBeNull();
      expect(archiveFormatOf(head)).toBeNull();
    }
  });
});
