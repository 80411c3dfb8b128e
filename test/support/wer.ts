/** Word error rate, as the engine tests compute it (lower-case words, punctuation dropped). */

export function words(text: string): string[] {
  return text.toLowerCase().replace(/[^a-z' ]+/g, ' ').split(/\s+/).filter(Boolean);
}

/** Word-level Levenshtein distance between reference and hypothesis (substitutions + deletions + insertions). */
export function wordErrors(reference: string, hypothesis: string): number {
  const r = words(reference);
  const h = words(hypothesis);
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) {
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (r[i - 1] === h[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[h.length] ?? 0;
}

/** Word error rate of one utterance: errors / reference words. */
export function wer(reference: string, hypothesis: string): number {
  return wordErrors(reference, hypothesis) / Math.max(1, words(reference).length);
}

/** Corpus WER: errors summed over utterances divided by reference words summed (not a mean of per-utterance rates). */
export class WerAccumulator {
  errors = 0;
  referenceWords = 0;
  utterances = 0;

  add(reference: string, hypothesis: string): number {
    const e = wordErrors(reference, hypothesis);
    this.errors += e;
    this.referenceWords += words(reference).length;
    this.utterances++;
    return e / Math.max(1, words(reference).length);
  }

  get wer(): number {
    return this.referenceWords > 0 ? this.errors / this.referenceWords : NaN;
  }
}
