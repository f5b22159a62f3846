/** Gram blooms (search/bloom.ts), without a database; the SQL side's agreement is in server/test. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BLOOM_BITS, bloomFalsePass, bloomOf, FULL_BLOOM, gramBit, wordsMask } from './bloom.js';
import { gramsOf, normaliseTerm, searchForm, searchWords } from './plan.js';

const holds = (bloom: string, mask: string) => [...mask].every((bit, i) => bit === '0' || bloom[i] === '1');

describe('gram blooms', () => {
  it('sets one bit a gram, the first byte of its MD5, as PostgreSQL’s bit(256) reads it', () => {
    for (const gram of ['a', 'ab', '地', '地图', '😀', '😀地'])
      expect(gramBit(gram)).toBe(createHash('md5').update(gram, 'utf8').digest()[0]);
    const bloom = bloomOf(['ab', '地图']);
    expect(bloom).toHaveLength(BLOOM_BITS);
    expect(bloom.replace(/[01]/g, '')).toBe('');
    expect([...bloom].flatMap((b, i) => (b === '1' ? [i] : []))).toEqual(
      [...new Set([gramBit('ab'), gramBit('地图')])].sort((x, y) => x - y),
    );
    expect(bloomOf([])).toBe('0'.repeat(BLOOM_BITS));
    expect(FULL_BLOOM).toBe('1'.repeat(BLOOM_BITS));
  });

  it('never rules out a text that holds every word: its mask is within the text’s bloom', () => {
    // Deterministic pseudo-random texts of letters, Chinese, digits and an emoji, and words cut
    // from them: each word's bits are set in the text's bloom.
    const alphabet = Array.from('abcreact地图个人博客项目小站😀１２ ');
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let n = 0; n < 300; n++) {
      const chars = Array.from({ length: 5 + (next() % 60) }, () => alphabet[next() % alphabet.length]!);
      const text = searchForm(`${chars.join('')}\n${chars.slice(3).join('')}`);
      const bloom = bloomOf(gramsOf(text));
      const line = Array.from(text.split('\n')[0]!);
      const from = next() % line.length;
      const term = normaliseTerm(line.slice(from, from + 1 + (next() % 8)).join(''));
      if (!term) continue;
      const words = searchWords(term);
      const mask = wordsMask(words);
      expect(mask, term).not.toBeNull();
      expect(holds(bloom, mask!), `${term} in ${text}`).toBe(true);
    }
  });

  it('asks for no bit when the words name no gram, and for the bits of each word’s grams', () => {
    expect(wordsMask([])).toBeNull();
    expect(wordsMask(['react', '地图'])).toBe(bloomOf([...gramsOf('react'), ...gramsOf('地图')]));
    // A text lacking one of the words' grams is ruled out unless another gram shares its bit.
    const bloom = bloomOf(gramsOf('地图小站'));
    expect(holds(bloom, wordsMask(['地图'])!)).toBe(true);
    expect(holds(bloom, wordsMask(['地图', 'react'])!)).toBe(false);
  });

  it('expects a quarter of the bits of a text without the words to be set, each mask bit alone', () => {
    const bitsOf = (words: string[]) => [...wordsMask(words)!].filter((b) => b === '1').length;
    // 璐: one gram, one bit; 地图: three grams (地, 图, 地图), at most three bits.
    expect(bloomFalsePass(['璐'])).toBe(0.25);
    expect(bloomFalsePass(['地图'])).toBe(0.25 ** bitsOf(['地图']));
    expect(bitsOf(['react', '地图'])).toBeGreaterThan(bitsOf(['react']));
    expect(bloomFalsePass(['react', '地图'])).toBeLessThan(bloomFalsePass(['react']));
    // No gram (no word): nothing ruled out.
    expect(bloomFalsePass([])).toBe(1);
  });
});
