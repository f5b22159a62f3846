/**
 * Gram blooms (PostgreSQL, migration 038; docs/decisions/serving.md "Gram blooms on the walk"):
 * each listed project's row holds a 256-bit summary of its own text's grams, one bit a gram, and
 * the order indexes hold it too. A walk of the page tests a project's bits before probing its
 * postings: a project whose bits lack one of a word's grams can't hold the word, and costs no
 * probe (≈2 µs each at 1,000,000 projects). A bit that is set proves nothing; the probes and the
 * text still decide. Pure: the same bits are written by the index (index-maintenance.ts) and by the
 * migration's SQL (the first byte of the gram's MD5, as `gramBit` here), and asked for by a search.
 */
import { createHash } from 'node:crypto';
import { gramsOf, searchForm, splitSearchText } from './plan.js';

export const BLOOM_BITS = 256;
/**
 * The share of a bloom's bits set, taken as about a quarter (≈70 grams a text: 1 − (255/256)^70;
 * docs/decisions/serving.md "Gram blooms on the walk").
 */
const BLOOM_FILL = 0.25;
/** What a row holds before its text is summed up: every bit set, so every test passes. */
export const FULL_BLOOM = '1'.repeat(BLOOM_BITS);

/**
 * A gram's bit: the first byte of the MD5 of its UTF-8 bytes (SQL: `get_byte(decode(md5(g),
 * 'hex'), 0)`). MD5 for its spread and because both sides have it, not for secrecy. Remembered:
 * a batch of the index names the same few thousand grams over and over.
 */
const bits = new Map<string, number>();
const REMEMBERED_BITS = 50_000;
export function gramBit(gram: string): number {
  let bit = bits.get(gram);
  if (bit === undefined) {
    if (bits.size >= REMEMBERED_BITS) bits.clear();
    bit = createHash('md5').update(gram).digest()[0]!;
    bits.set(gram, bit);
  }
  return bit;
}

/** The bloom of a set of grams as PostgreSQL's `bit(256)` reads it: bit n is character n. */
export function bloomOf(grams: Iterable<string>): string {
  const set = new Uint8Array(BLOOM_BITS);
  for (const gram of grams) set[gramBit(gram)] = 1;
  return Array.from(set, (b) => (b ? '1' : '0')).join('');
}

/**
 * The bits every own text holding each of `words` has set (each word's 1- and 2-character
 * grams), or null when no word names a gram.
 */
export function wordsMask(words: readonly string[]): string | null {
  const grams = new Set<string>();
  for (const w of words) for (const gram of gramsOf(w)) grams.add(gram);
  return grams.size === 0 ? null : bloomOf(grams);
}

/**
 * The share of own texts without `words` whose bloom holds their bits all the same (each of the
 * mask's bits set a quarter of the time, taken as independent): what a walk still probes of the
 * projects that can't match (plan.ts hashOverProbes). 1 when no word names a gram.
 */
export function bloomFalsePass(words: readonly string[]): number {
  const mask = wordsMask(words);
  if (mask === null) return 1;
  let set = 0;
  for (const bit of mask) if (bit === '1') set++;
  return BLOOM_FILL ** set;
}

/**
 * The bloom of a project's own text as its search text holds it (the lines before the author's),
 * normalised as the index normalises it: what index-maintenance.ts writes for its entry, and the
 * projects repository with the search text itself.
 */
export function ownBloom(searchText: string): string {
  return bloomOf(gramsOf(splitSearchText(searchForm(searchText)).own));
}
