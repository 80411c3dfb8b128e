import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, DEFAULT_THRESHOLD, fft, OnlineDiarizer, type TimedWord } from '../src/streaming/diarization';
import { decodeToPcm16k } from './support/audio';

/**
 * Real speakers: LibriSpeech train-clean-100, one utterance per speaker, beside the repository in
 * shared/data/librispeech. Speakers sorted by numeric id: the even positions tuned the diarizer
 * (background statistics and thresholds, see the module comment), so these tests use only the odd
 * positions (held out).
 */
const DATA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/data/librispeech/train-clean-100');
const RATE = 16000;

interface Speaker { id: string; sex: 'M' | 'F'; file: string }

function heldOutSpeakers(): Speaker[] {
  const sex = new Map<string, 'M' | 'F'>();
  for (const line of readFileSync(path.join(DATA, 'SPEAKERS.TXT'), 'utf8').split('\n')) {
    if (line.startsWith(';') || !line.includes('|')) continue;
    const [id, s] = line.split('|').map((x) => x.trim());
    if (id && (s === 'M' || s === 'F')) sex.set(id, s);
  }
  const all = readdirSync(DATA).filter((f) => f.endsWith('.flac'))
    .map((file) => ({ id: file.split('-')[0]!, file }))
    .sort((a, b) => Number(a.id) - Number(b.id));
  expect(all.length).toBe(251);
  return all.filter((_, i) => i % 2 === 1).map((s) => ({ ...s, sex: sex.get(s.id)! }));
}

/** Deterministic PRNG (mulberry32), so the sample of pairs is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seconds = (s: number): number => Math.round(s * RATE);

/** A streaming session: feeds segments in order, keeping session times as the edge would. */
class Session {
  readonly diarizer: OnlineDiarizer;
  private t = 0;
  constructor(threshold?: number) {
    this.diarizer = new OnlineDiarizer({ sampleRateHz: 16000, threshold });
  }

  /** A segment with one word spanning it, or pseudo-words every `wordSeconds`. */
  feed(pcm: Int16Array, wordSeconds?: number): number[] {
    const duration = pcm.length / RATE;
    const words: TimedWord[] = [];
    if (wordSeconds === undefined) words.push({ startSeconds: this.t, endSeconds: this.t + duration });
    else for (let s = 0; s + wordSeconds <= duration + 1e-9; s += wordSeconds) words.push({ startSeconds: this.t + s, endSeconds: this.t + s + wordSeconds - 0.05 });
    const tags = this.diarizer.assign(pcm, words, this.t);
    expect(tags).toHaveLength(words.length);
    this.t += duration;
    return tags;
  }

  /** The segment's tag when all its words share one. */
  tag(pcm: Int16Array): number {
    const tags = this.feed(pcm);
    return tags[0]!;
  }
}

const concat = (...parts: Int16Array[]): Int16Array => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
};

let work: string;
let speakers: Speaker[];
const audio = new Map<string, Int16Array>();
const pcmOf = (s: Speaker): Int16Array => {
  let pcm = audio.get(s.id);
  if (!pcm) {
    pcm = decodeToPcm16k(path.join(DATA, s.file), work);
    audio.set(s.id, pcm);
  }
  return pcm;
};
const speaker = (id: string): Speaker => {
  const s = speakers.find((x) => x.id === id);
  if (!s) throw new Error(`speaker ${id} is not held out`);
  return s;
};
/** Held-out speakers with at least `min` seconds of audio, in id order. */
const withAudio = (min: number, sex?: 'M' | 'F'): Speaker[] => speakers.filter((s) => (!sex || s.sex === sex) && pcmOf(s).length >= seconds(min));

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'vx-diarization-'));
  speakers = heldOutSpeakers();
  for (const s of speakers) pcmOf(s);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('signal processing', () => {
  it('fft matches a direct DFT', () => {
    const n = 64;
    const r = prng(1);
    const x = Array.from({ length: n }, () => r() - 0.5), y = Array.from({ length: n }, () => r() - 0.5);
    const re = Float64Array.from(x), im = Float64Array.from(y);
    fft(re, im);
    for (let k = 0; k < n; k++) {
      let sr = 0, si = 0;
      for (let t = 0; t < n; t++) {
        const a = (-2 * Math.PI * k * t) / n;
        sr += x[t]! * Math.cos(a) - y[t]! * Math.sin(a);
        si += x[t]! * Math.sin(a) + y[t]! * Math.cos(a);
      }
      expect(re[k]).toBeCloseTo(sr, 9);
      expect(im[k]).toBeCloseTo(si, 9);
    }
  });

  it('frames are 25 ms every 10 ms, and only energetic frames count as evidence', () => {
    const pcm = new Int16Array(seconds(1));
    // 0.5 s of a 200 Hz tone, then silence
    for (let i = 0; i < seconds(0.5); i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * 200 * i) / RATE));
    const frames = analyze(pcm);
    expect(frames.count).toBe(1 + Math.floor((RATE - 400) / 160));
    const voiced = Array.from(frames.voiced);
    expect(voiced.slice(0, 45).every((v) => v === 1)).toBe(true);
    expect(voiced.slice(52).every((v) => v === 0)).toBe(true);
    expect(frames.cepstra.every(Number.isFinite)).toBe(true);
  });

  it('stationary noise with no speech in it is no evidence', () => {
    const r = prng(2);
    const noise = Int16Array.from({ length: seconds(3) }, () => Math.round((r() - 0.5) * 2000));
    expect(analyze(noise).voiced.reduce((a, b) => a + b, 0)).toBe(0);
  });
});

describe('OnlineDiarizer on held-out LibriSpeech speakers', () => {
  it('two utterances of the same speaker get the same tag', () => {
    // LibriSpeech holds one utterance per speaker here: its two halves are the two utterances
    const chosen = withAudio(10).slice(0, 8);
    expect(chosen).toHaveLength(8);
    for (const s of chosen) {
      const pcm = pcmOf(s);
      const half = Math.floor(pcm.length / 2);
      const session = new Session();
      expect([session.tag(pcm.subarray(0, half)), session.tag(pcm.subarray(half))], `speaker ${s.id}`).toEqual([1, 1]);
      expect(session.diarizer.speakerCount).toBe(1);
    }
  });

  it('alternating segments of two different speakers get tag 1 for the first and 2 for the second', () => {
    // All 28 pairs among the first four held-out men and first four women (id order, ≥ 9 s each),
    // three 3 s segments each, alternating: measured 17 of 28 exactly 1,2,1,2,1,2 (3/6 man+man,
    // 3/6 woman+woman, 11/16 mixed); the failures merge the two (e.g. 78+163, 163+233, 32+26) or
    // give one speaker a third tag (87). Required: at least 14, and the pinned pairs below.
    const run = (a: Speaker, b: Speaker): number[] => {
      const session = new Session();
      const tags: number[] = [];
      for (let i = 0; i < 3; i++) {
        tags.push(session.tag(pcmOf(a).subarray(seconds(3 * i), seconds(3 * i + 3))));
        tags.push(session.tag(pcmOf(b).subarray(seconds(3 * i), seconds(3 * i + 3))));
      }
      return tags;
    };
    const men = withAudio(9, 'M').slice(0, 4), women = withAudio(9, 'F').slice(0, 4);
    expect(men.map((s) => s.id)).toEqual(['26', '78', '163', '233']);
    expect(women.map((s) => s.id)).toEqual(['32', '40', '87', '103']);
    const pairs: [Speaker, Speaker][] = [];
    for (let i = 0; i < 4; i++) {
      for (let j = i + 1; j < 4; j++) pairs.push([men[i]!, men[j]!], [women[i]!, women[j]!]);
      for (let j = 0; j < 4; j++) pairs.push((i + j) % 2 ? [men[i]!, women[j]!] : [women[j]!, men[i]!]);
    }
    const exact = pairs.filter(([a, b]) => run(a, b).join() === '1,2,1,2,1,2');
    expect(exact.length).toBeGreaterThanOrEqual(14);
    // pinned: a pair of men, a pair of women, a woman then a man
    for (const [a, b] of [['26', '233'], ['32', '40'], ['40', '78']] as const) {
      expect(run(speaker(a), speaker(b)), `${a} then ${b}`).toEqual([1, 2, 1, 2, 1, 2]);
    }
  });

  it('assigns over 80% of alternating segments right across 20 random held-out speaker pairs (measured 91%: 115 of 126)', () => {
    const pool = withAudio(8);
    const r = prng(2026);
    let right = 0, total = 0;
    for (let p = 0; p < 20; p++) {
      const a = pool[Math.floor(r() * pool.length)]!;
      let b = a;
      while (b === a) b = pool[Math.floor(r() * pool.length)]!;
      const cut = (pcm: Int16Array): Int16Array[] => {
        const parts: Int16Array[] = [];
        for (let o = 0; parts.length < 4;) {
          const len = seconds(2 + 3 * r());
          if (o + len > pcm.length) break;
          parts.push(pcm.subarray(o, o + len));
          o += len;
        }
        return parts;
      };
      const sa = cut(pcmOf(a)), sb = cut(pcmOf(b));
      const session = new Session();
      for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
        right += Number(session.tag(sa[i]!) === 1) + Number(session.tag(sb[i]!) === 2);
        total += 2;
      }
    }
    expect(total).toBeGreaterThanOrEqual(100);
    expect(right / total).toBeGreaterThan(0.8);
  });

  it('silence and very short segments inherit the previous tag and create no speaker', () => {
    const m = speaker('78'), f = speaker('40');
    const r = prng(3);
    const session = new Session();
    // before any speaker: tag 1, and it is not evidence for anyone
    expect(session.tag(new Int16Array(seconds(2)))).toBe(1);
    expect(session.diarizer.speakerCount).toBe(0);
    expect(session.tag(pcmOf(m).subarray(0, seconds(3)))).toBe(1);
    expect(session.tag(pcmOf(f).subarray(0, seconds(3)))).toBe(2);
    expect(session.tag(new Int16Array(seconds(2)))).toBe(2); // digital silence
    expect(session.tag(Int16Array.from({ length: seconds(2) }, () => Math.round((r() - 0.5) * 600)))).toBe(2); // background noise
    expect(session.tag(pcmOf(m).subarray(seconds(3), seconds(3.3)))).toBe(2); // 0.3 s of the first speaker: too little to tell
    expect(session.diarizer.speakerCount).toBe(2);
    expect(session.tag(pcmOf(m).subarray(seconds(3.3), seconds(6.3)))).toBe(1);
    expect(session.diarizer.assign(new Int16Array(0), [])).toEqual([]);
  });

  it('a change of speaker inside a segment is tagged at the word boundary', () => {
    // Session: 3 s of A, 3 s of B, then ONE segment of 3 s more of A and 3 s more of B with a
    // pseudo-word every 0.5 s. Over the 28 pairs among the first four held-out men and women
    // (≥ 9 s), measured 77% of those 12 words tagged right (one tag per segment gives at most 50%):
    // the change found exactly in 8 pairs, one word off in 7, two off in 2, not found in 11 (4 of
    // them pairs the diarizer merges anyway). Required: over 65%, and the pinned pairs below.
    const run = (a: Speaker, b: Speaker): number[] => {
      const session = new Session();
      session.tag(pcmOf(a).subarray(0, seconds(3)));
      session.tag(pcmOf(b).subarray(0, seconds(3)));
      return session.feed(concat(pcmOf(a).subarray(seconds(3), seconds(6)), pcmOf(b).subarray(seconds(3), seconds(6))), 0.5);
    };
    const men = withAudio(9, 'M').slice(0, 4), women = withAudio(9, 'F').slice(0, 4);
    let right = 0, total = 0;
    for (let i = 0; i < 4; i++) {
      const pairs: [Speaker, Speaker][] = [];
      for (let j = i + 1; j < 4; j++) pairs.push([men[i]!, men[j]!], [women[i]!, women[j]!]);
      for (let j = 0; j < 4; j++) pairs.push((i + j) % 2 ? [men[i]!, women[j]!] : [women[j]!, men[i]!]);
      for (const [a, b] of pairs) {
        const tags = run(a, b);
        expect(tags).toHaveLength(12);
        right += tags.filter((t, k) => t === (k < 6 ? 1 : 2)).length;
        total += tags.length;
      }
    }
    expect(total).toBe(28 * 12);
    expect(right / total).toBeGreaterThan(0.65);
    // pinned: a man then a woman, a woman then a woman
    for (const [a, b] of [['26', '40'], ['32', '87']] as const) {
      expect(run(speaker(a), speaker(b)), `${a} then ${b}`).toEqual([1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    }
  });

  it("a single speaker's long segment is not split", () => {
    const long = withAudio(14).slice(0, 10);
    expect(long).toHaveLength(10);
    const [f] = withAudio(9, 'F');
    for (const s of long) {
      const session = new Session();
      if (s !== f) session.tag(pcmOf(f).subarray(0, seconds(3))); // another speaker known too
      const tags = session.feed(pcmOf(s), 0.5);
      expect(new Set(tags).size, `speaker ${s.id}`).toBe(1);
    }
  });

  it('maxSpeakers bounds the number of tags', () => {
    const diarizer = new OnlineDiarizer({ maxSpeakers: 2 });
    const tags = withAudio(4).slice(0, 6).map((s) => diarizer.assign(pcmOf(s).subarray(0, seconds(3)), [{ startSeconds: 0, endSeconds: 3 }], 0)[0]);
    expect(diarizer.speakerCount).toBe(2);
    expect(new Set(tags)).toEqual(new Set([1, 2]));
    expect(DEFAULT_THRESHOLD).toBeGreaterThan(0);
    expect(() => new OnlineDiarizer({ sampleRateHz: 8000 as 16000 })).toThrow(RangeError);
  });
});
