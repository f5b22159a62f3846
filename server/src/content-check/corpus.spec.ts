/**
 * The content check measured against its targets (docs/content-check.md): every hostile site is
 * flagged by a risk finding of medium or high, and at most 1 ordinary site in 20 is, on the
 * corpus in the repository and on a held-out set generated at run time.
 */
import { describe, expect, it } from 'vitest';
import {
  evaluate,
  formatEvaluation,
  heldOut,
  loadCorpus,
  newSeed,
} from '../../test/support/content-corpus.js';

describe('the content check against its targets', () => {
  it('the corpus: at least 30 ordinary and 20 hostile sites; every hostile one flagged, ≤ 1 in 20 false alarms', () => {
    const corpus = loadCorpus();
    const e = evaluate(corpus);
    console.log(formatEvaluation('corpus', e));
    expect(e.benign).toBeGreaterThanOrEqual(30);
    expect(e.hostile).toBeGreaterThanOrEqual(20);
    const missed = e.rows.filter((r) => r.site.group === 'hostile' && !r.flagged).map((r) => r.site.name);
    expect(missed).toEqual([]);
    expect(e.falseAlarms / e.benign).toBeLessThanOrEqual(1 / 20);
  });

  it('the held-out set (other hosts, names, brands and obfuscations): the same targets', () => {
    // Seeded: CONTENT_CORPUS_SEED makes a failed run's set again (its seed is printed and named).
    const seed = process.env.CONTENT_CORPUS_SEED ? Number(process.env.CONTENT_CORPUS_SEED) : newSeed();
    const e = evaluate(heldOut(10, seed));
    console.log(formatEvaluation(`held-out (seed ${seed})`, e));
    const missed = e.rows.filter((r) => r.site.group === 'hostile' && !r.flagged);
    expect(
      missed.map((r) => `${r.site.name}: ${JSON.stringify(r.site.files)}`),
      `seed ${seed}`,
    ).toEqual([]);
    expect(e.falseAlarms / e.benign, `seed ${seed}`).toBeLessThanOrEqual(1 / 20);
  });
});
