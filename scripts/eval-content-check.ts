/**
 * Prints the content check's detection and false-alarm rates on the corpus
 * (server/test/fixtures/content-corpus) and on a held-out set generated now (docs/content-check.md).
 *   npm run eval:content            the corpus and 10 rounds of the held-out set
 *   npm run eval:content -- 50      50 rounds
 *   npm run eval:content -- 10 42   10 rounds of the set seed 42 makes (each run prints its seed)
 * Exits 1 below the targets: every hostile site flagged, at most 1 ordinary site in 20.
 */
import {
  evaluate,
  formatEvaluation,
  heldOut,
  loadCorpus,
  newSeed,
} from '../server/test/support/content-corpus.js';

const rounds = Number(process.argv[2] ?? 10);
const seed = process.argv[3] === undefined ? newSeed() : Number(process.argv[3]);
console.log(`held-out seed: ${seed} (again: npm run eval:content -- ${rounds} ${seed})`);
let ok = true;
for (const [title, sites] of [
  ['corpus', loadCorpus()],
  [`held-out (${rounds} rounds, seed ${seed})`, heldOut(rounds, seed)],
] as const) {
  const e = evaluate(sites);
  console.log(formatEvaluation(title, e));
  if (e.detected < e.hostile || e.falseAlarms / e.benign > 1 / 20) ok = false;
}
console.log(ok ? 'targets met' : 'BELOW TARGET');
process.exit(ok ? 0 : 1);
