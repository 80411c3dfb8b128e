import { describe, expect, it } from 'vitest';
import { normalizedTranscript, normalizeWords, type Word } from '../src/streaming/itn';

/** Words as the engine gives them: 0.3 s each, 0.1 s apart, confidences 0.9, 0.8, 0.7… (min 0.5). */
function spoken(text: string, speakerTag: number | null = null): Word[] {
  return text.split(' ').map((word, i) => ({
    word,
    startSeconds: 1 + i * 0.4,
    endSeconds: 1 + i * 0.4 + 0.3,
    confidence: Math.max(0.9 - 0.1 * i, 0.5),
    speakerTag,
  }));
}
const itn = (text: string): string => normalizedTranscript(spoken(text));

describe('normalizeWords: conversions', () => {
  it.each([
    ['twenty five', '25'],
    ['ten', '10'],
    ['nineteen', '19'],
    ['ninety nine', '99'],
    ['one hundred and three', '103'],
    ['one hundred three', '103'],
    ['three hundred', '300'],
    ['two thousand twenty six', '2026'],
    ['two thousand and five', '2005'],
    ['one thousand', '1000'],
    ['one hundred thousand', '100000'],
    ['three million four hundred thousand', '3400000'],
    ['nineteen hundred', '1900'],
    ['three point five', '3.5'],
    ['three point one four', '3.14'],
    ['zero point oh five', '0.05'],
    ['twenty one point five', '21.5'],
    ['fifty percent', '50%'],
    ['five percent', '5%'],
    ['one hundred per cent', '100%'],
    ['two point five percent', '2.5%'],
    ['nineteen eighty four', '1984'],
    ['twenty twenty six', '2026'],
    ['nineteen oh five', '1905'],
  ])('"%s" → %s', (text, want) => {
    expect(itn(text)).toBe(want);
  });

  it('converts numbers inside sentences and leaves the other words as they are', () => {
    expect(itn('the meeting is at twenty five past with one hundred and three people'))
      .toBe('the meeting is at 25 past with 103 people');
    expect(itn('inflation was three point five percent in twenty twenty six')).toBe('inflation was 3.5% in 2026');
    expect(itn('it cost fifteen dollars')).toBe('it cost 15 dollars');
  });

  it('adjacent numbers that do not form one number stay separate', () => {
    expect(itn('twenty five thirty')).toBe('25 30');
    expect(itn('fifteen sixteen seventeen')).toBe('15 16 17'); // counting, not a year
    expect(itn('eleven thirty')).toBe('11 30'); // a clock time, not a year
    expect(itn('ten thousand thousand')).toBe('10000 thousand');
  });
});

describe('normalizeWords: left alone', () => {
  it.each([
    'no one came',
    'one of them',
    'the one i saw',
    'pick any two',
    'four five six', // spelled digits
    'one day',
    'five dollars',
    'a hundred people',
    'thousands of them',
    'point five',
    'oh really',
    'the first and second',
    'zero',
  ])('"%s"', (text) => {
    expect(itn(text)).toBe(text);
  });

  it('"and" joins a number only after hundred or thousand', () => {
    expect(itn('five and ten')).toBe('five and 10');
    expect(itn('one hundred and')).toBe('100 and');
    expect(itn('rock and roll')).toBe('rock and roll');
  });

  it('a single digit becomes a number with "point" or "percent" after it', () => {
    expect(itn('one')).toBe('one');
    expect(itn('one percent')).toBe('1%');
    expect(itn('one point two')).toBe('1.2');
  });
});

describe('normalizeWords: timing and confidence', () => {
  it('a merged word spans its spoken words: start of the first, end of the last', () => {
    const words = spoken('about one hundred and three people');
    const out = normalizeWords(words);
    expect(out.map((w) => w.word)).toEqual(['about', '103', 'people']);
    expect(out[1]!.startSeconds).toBe(words[1]!.startSeconds);
    expect(out[1]!.endSeconds).toBe(words[4]!.endSeconds);
    expect(out[0]).toEqual(words[0]);
    expect(out[2]).toEqual(words[5]);
    for (let i = 1; i < out.length; i++) expect(out[i]!.startSeconds).toBeGreaterThanOrEqual(out[i - 1]!.endSeconds);
  });

  it("a merged word's confidence is the lowest of its words', ignoring nulls", () => {
    const words = spoken('twenty five percent');
    words[0]!.confidence = 0.95;
    words[1]!.confidence = 0.4;
    words[2]!.confidence = null;
    const [merged] = normalizeWords(words);
    expect(merged).toMatchObject({ word: '25%', startSeconds: words[0]!.startSeconds, endSeconds: words[2]!.endSeconds, confidence: 0.4 });
    const unknown = spoken('twenty five').map((w) => ({ ...w, confidence: null }));
    expect(normalizeWords(unknown)[0]!.confidence).toBeNull();
  });

  it("a merged word keeps the first word's speaker tag", () => {
    const words = spoken('twenty five', 2);
    words[1]!.speakerTag = 3;
    expect(normalizeWords(words)[0]!.speakerTag).toBe(2);
  });

  it('does not modify its input and is idempotent', () => {
    const words = spoken('we sold fifty percent of two thousand twenty six');
    const copy = structuredClone(words);
    const once = normalizeWords(words);
    expect(words).toEqual(copy);
    expect(normalizeWords(once)).toEqual(once);
    expect(normalizedTranscript(once)).toBe('we sold 50% of 2026');
    expect(normalizedTranscript(words)).toBe('we sold 50% of 2026');
  });

  it('handles no words and upper case', () => {
    expect(normalizeWords([])).toEqual([]);
    expect(normalizedTranscript([])).toBe('');
    expect(itn('Twenty Five')).toBe('25');
  });
});
