/** The Content-Type an accepted file is served with, chosen by its extension (contracts' FILE_TYPES). */
import { fileTypeOf } from '@sitehall/contracts';
import mime from 'mime-types';
import { isTextExtension } from './content.js';

/** Text is labelled UTF-8 only when its bytes are UTF-8, so legacy (GBK) pages keep their meta charset. */
export function mediaTypeFor(ext: string, utf8: boolean): string {
  // An extension an admin added that FILE_TYPES doesn't know: the mime-types package's answer.
  const type = fileTypeOf(ext)?.mime ?? (mime.lookup(ext) || 'application/octet-stream');
  return isTextExtension(ext) && utf8 ? `${type}; charset=utf-8` : type;
}
