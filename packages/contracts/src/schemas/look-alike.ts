/**
 * Characters that make a name another person sees look like another name, or read otherwise than
 * it is stored (docs/decisions/uploads.md "Look-alike names"): controls (a NUL can't even be stored in
 * PostgreSQL text), every format character (Unicode Cf: the zero-width space, joiners and
 * non-joiner, the bidirectional marks, embeddings, overrides and isolates, the word joiner, soft
 * hyphen, BOM, tags...), the line and paragraph separators, and letters that draw nothing (the
 * combining grapheme joiner, Hangul fillers, Khmer inherent vowels, the blank Braille cell).
 * `admin\u200b` reads as `admin`, and `abc\u202egpj.exe` as `abcexe.jpg`. File names are held to
 * the same set (server/src/ingest/names.ts, which the ingest worker checks without this package).
 */
export const LOOK_ALIKE_CHARS =
  /[\u0000-\u001f\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0]|\u034f/u;

/** True when a name holds none of LOOK_ALIKE_CHARS. */
export function drawsAsStored(name: string): boolean {
  return !LOOK_ALIKE_CHARS.test(name);
}
