/**
 * Inverse text normalization (ITN) of English recognizer output: spoken numbers become digits in
 * the finalized words, so "twenty five" is one word "25" whose times span both spoken words.
 *
 * Pure and dependency-free; works on the lower-case words of the ASR engine (case is ignored).
 *
 * What is converted:
 *  - Cardinals, from "ten" up: "twenty five" → 25, "one hundred and three" → 103,
 *    "two thousand twenty six" → 2026, "three million four hundred thousand" → 3400000. Digits only,
 *    no thousands separators (a year must not get one, and nothing tells a year from a count).
 *  - Decimals: a cardinal (any, "zero" included), "point", then digit words ("zero"/"oh" to
 *    "nine"): "three point five" → 3.5, "zero point oh five" → 0.05.
 *  - Percentages: a cardinal or decimal followed by "percent" or "per cent": "fifty percent" → 50%,
 *    "five percent" → 5%, "two point five percent" → 2.5%.
 *  - Years said in pairs: "thirteen"…"nineteen" or "twenty", then 10…99 or "oh" and a digit, with
 *    no other number word right before or after: "nineteen eighty four" → 1984, "twenty twenty six"
 *    → 2026, "nineteen oh five" → 1905. Not from "eleven"/"twelve", which start clock times
 *    ("eleven thirty" → 11 30, not 1130), and not inside a run of numbers ("fifteen sixteen
 *    seventeen", counting, → 15 16 17). A remaining risk is two counted numbers ("ages sixteen
 *    seventeen" → 1617).
 *
 * What is left alone (conservative: a wrong digit is worse than a spelled-out number):
 *  - A single word "zero"…"nine" on its own: "no one", "one of them", "the one", "one day",
 *    "pick any two", spelled digit strings ("four five six"). Only "point" or "percent" after it
 *    makes it a number. Other units do not ("five dollars", "two minutes" stay words): too many of
 *    them are idioms ("one second", "one day").
 *  - "hundred"/"thousand"/… without a leading number ("a hundred", "thousands").
 *  - "and" unless it joins a number after "hundred"/"thousand"/… ("five and ten" → five and 10).
 *  - Ordinals ("first", "twenty fifth"), fractions ("a half"), negatives, "point five" without an
 *    integer part, and currency symbols are not attempted.
 *
 * Timing: a converted word starts where its first spoken word starts and ends where its last ends,
 * so word times stay ordered and non-overlapping. Its confidence is the MINIMUM of its words'
 * (nulls ignored; null if all are): the merged token is right only if every one of its words was
 * recognized right, so the weakest word bounds it, while a mean would let a confident "hundred" hide
 * a doubtful "fifty" vs "fifteen". Its speakerTag is the first word's.
 */

export interface Word {
  word: string;
  startSeconds: number;
  endSeconds: number;
  confidence: number | null;
  speakerTag: number | null;
}

const UNITS: Record<string, number> = { zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9 };
const TEENS: Record<string, number> = {
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };
const DIGITS: Record<string, string> = { ...Object.fromEntries(Object.entries(UNITS).map(([k, v]) => [k, String(v)])), oh: '0' };

const lower = (w: Word | undefined): string => (w ? w.word.toLowerCase() : '');
const own = (table: Record<string, unknown>, key: string): boolean => Object.prototype.hasOwnProperty.call(table, key);
const isNumberWord = (s: string): boolean => own(UNITS, s) || own(TEENS, s) || own(TENS, s) || own(SCALES, s) || s === 'hundred';

interface Cardinal {
  value: number;
  /** index after the last word used */
  end: number;
}

/**
 * The longest cardinal starting at `start`, by the grammar
 *   cardinal := group (scale group?)* ; group := [1-99 "hundred" ["and"]] [1-99] ; 1-99 := unit | teen | tens [unit]
 * with scales strictly decreasing. "zero" is a cardinal only on its own.
 */
function parseCardinal(words: readonly Word[], start: number): Cardinal | undefined {
  const first = lower(words[start]);
  if (first === 'zero') return { value: 0, end: start + 1 };
  if (!own(UNITS, first) && !own(TEENS, first) && !own(TENS, first)) return undefined;

  let total = 0; // completed scale groups
  let group = 0; // current group below 1000 (hundreds included)
  let below100 = 0; // the part of the group below 100
  let hasHundred = false; // the group has "… hundred"
  let lastKind: 'none' | 'unit' | 'teen' | 'tens' | 'hundred' | 'scale' = 'none';
  let lastScale = Infinity;
  let best: Cardinal | undefined;

  for (let i = start; i < words.length; i++) {
    const s = lower(words[i]);
    if (s === 'and') {
      // only "hundred and five", "thousand and five"
      if (lastKind !== 'hundred' && lastKind !== 'scale') break;
      const next = lower(words[i + 1]);
      if (!(own(UNITS, next) && next !== 'zero') && !own(TEENS, next) && !own(TENS, next)) break;
      continue;
    }
    if (own(UNITS, s) && s !== 'zero') {
      // a unit completes an empty below-100 part or a bare tens ("twenty five")
      if (!(below100 === 0 || (lastKind === 'tens' && below100 % 10 === 0))) break;
      below100 += UNITS[s]!;
      lastKind = 'unit';
    } else if (own(TEENS, s)) {
      if (below100 !== 0) break;
      below100 = TEENS[s]!;
      lastKind = 'teen';
    } else if (own(TENS, s)) {
      if (below100 !== 0) break;
      below100 = TENS[s]!;
      lastKind = 'tens';
    } else if (s === 'hundred') {
      if (hasHundred || below100 === 0 || lastKind === 'hundred' || lastKind === 'scale') break;
      group = below100 * 100;
      below100 = 0;
      hasHundred = true;
      lastKind = 'hundred';
    } else if (own(SCALES, s)) {
      const scale = SCALES[s]!;
      const value = group + below100;
      if (value === 0 || scale >= lastScale || lastKind === 'scale') break;
      total += value * scale;
      group = 0;
      below100 = 0;
      hasHundred = false;
      lastScale = scale;
      lastKind = 'scale';
    } else {
      break;
    }
    best = { value: total + group + below100, end: i + 1 };
  }
  return best;
}

/** "oh five" or 10…99 from one or two words, for the second half of a year. */
function parseYearHalf(words: readonly Word[], start: number): Cardinal | undefined {
  const s = lower(words[start]);
  if (s === 'oh') {
    const d = lower(words[start + 1]);
    return own(UNITS, d) && d !== 'zero' ? { value: UNITS[d]!, end: start + 2 } : undefined;
  }
  if (own(TEENS, s)) return { value: TEENS[s]!, end: start + 1 };
  if (own(TENS, s)) {
    const u = lower(words[start + 1]);
    return own(UNITS, u) && u !== 'zero' ? { value: TENS[s]! + UNITS[u]!, end: start + 2 } : { value: TENS[s]!, end: start + 1 };
  }
  return undefined;
}

function merge(words: readonly Word[], start: number, end: number, text: string): Word {
  const parts = words.slice(start, end);
  const confidences = parts.map((w) => w.confidence).filter((c): c is number => c !== null);
  return {
    word: text,
    startSeconds: parts[0]!.startSeconds,
    endSeconds: parts[parts.length - 1]!.endSeconds,
    confidence: confidences.length > 0 ? Math.min(...confidences) : null,
    speakerTag: parts[0]!.speakerTag,
  };
}

/**
 * The words with spoken numbers turned into digits (see the module comment for the rules). The
 * input is not modified; words that are not converted are returned as copies. Idempotent: digits
 * are not number words, so normalizing normalized words changes nothing.
 */
export function normalizeWords(words: readonly Word[]): Word[] {
  const out: Word[] = [];
  let i = 0;
  while (i < words.length) {
    const found = convertAt(words, i);
    if (found) {
      out.push(merge(words, i, found.end, found.text));
      i = found.end;
    } else {
      out.push({ ...words[i]! });
      i++;
    }
  }
  return out;
}

/** A conversion starting at words[i], if any. */
function convertAt(words: readonly Word[], i: number): { text: string; end: number } | undefined {
  const cardinal = parseCardinal(words, i);
  if (!cardinal) return undefined;
  let text = String(cardinal.value);
  let end = cardinal.end;
  let converted = cardinal.value >= 10;

  // decimal: "point" and at least one digit word
  if (lower(words[end]) === 'point' && own(DIGITS, lower(words[end + 1]))) {
    let fraction = '';
    let j = end + 1;
    for (; j < words.length && own(DIGITS, lower(words[j])); j++) fraction += DIGITS[lower(words[j])]!;
    text += `.${fraction}`;
    end = j;
    converted = true;
  } else if (end === i + 1 && cardinal.value >= 13 && cardinal.value <= 20 && !isNumberWord(lower(words[i - 1]))) {
    // a year said in pairs: "nineteen eighty four", "twenty twenty six", "nineteen oh five"
    const half = parseYearHalf(words, end);
    if (half && lower(words[half.end]) !== 'point' && !isNumberWord(lower(words[half.end])) && lower(words[half.end]) !== 'percent') {
      return { text: `${cardinal.value}${String(half.value).padStart(2, '0')}`, end: half.end };
    }
  }

  // percent
  if (lower(words[end]) === 'percent') {
    return { text: `${text}%`, end: end + 1 };
  }
  if (lower(words[end]) === 'per' && lower(words[end + 1]) === 'cent') {
    return { text: `${text}%`, end: end + 2 };
  }
  return converted ? { text, end } : undefined;
}

/** The transcript of the words after normalization, joined by single spaces. */
export function normalizedTranscript(words: readonly Word[]): string {
  return normalizeWords(words).map((w) => w.word).join(' ');
}
