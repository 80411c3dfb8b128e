/** Speech for the benchmarks: flite sentences and the pocketsphinx-testdata recordings with their transcripts. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pcmFromWav } from '@voxgate/engine-asr';
import { words } from './wer';

export const SAMPLE_RATE = 16_000;
/** bytes per second of 16 kHz 16-bit mono PCM */
export const BYTES_PER_SECOND = SAMPLE_RATE * 2;
export const FORMAT = { encoding: 'PCM_S16LE' as const, sampleRateHz: SAMPLE_RATE, channels: 1 };

export const FLITE_VOICES = ['kal16', 'slt', 'awb', 'rms'] as const;

/** Ten everyday sentences (flite reads them; pocketsphinx's general en-US language model should know every word). */
export const SENTENCES = [
  'The weather today is sunny and warm with a light breeze from the west.',
  'Please call me tomorrow morning about the meeting with the new customer.',
  'Open the door and turn on the light.',
  'Send the report to the finance team before noon.',
  'I would like to book a table for two people tonight.',
  'The train to the city leaves from the station every hour.',
  'She bought three apples and a loaf of bread at the market.',
  'Can you tell me how to get to the nearest hospital?',
  'Our company will release the new product next month.',
  'He forgot his umbrella and got wet in the rain.',
];

export interface Utterance {
  id: string;
  /** the words spoken */
  reference: string;
  /** 16 kHz 16-bit mono little-endian PCM */
  pcm: Buffer;
}

export const seconds = (pcm: Uint8Array): number => pcm.length / BYTES_PER_SECOND;

export function silence(secondsOf: number): Buffer {
  return Buffer.alloc(Math.round(secondsOf * SAMPLE_RATE) * 2);
}

export function fliteAvailable(): boolean {
  try {
    execFileSync('flite', ['-lv'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

/** flite speaks `text` with `voice` into `dir`; the PCM (16 kHz mono) without its WAVE header. */
export function synthesize(dir: string, text: string, voice: string): Buffer {
  const out = path.join(dir, `${voice}-${words(text).slice(0, 4).join('-')}.wav`);
  if (!existsSync(out)) execFileSync('flite', ['-voice', voice, '-t', text, '-o', out], { stdio: 'pipe' });
  const wav = readFileSync(out);
  const rate = wav.readUInt32LE(24);
  if (rate !== SAMPLE_RATE) throw new Error(`flite voice ${voice} speaks at ${rate} Hz, not ${SAMPLE_RATE}`);
  return Buffer.from(pcmFromWav(wav));
}

export const TESTDATA_DIR = '/usr/share/pocketsphinx/test/data';

/**
 * The pocketsphinx-testdata recordings that come with transcripts and are 16 kHz WAVE:
 * librivox (read speech, 5 sentences) and cards (spoken playing cards, 5 short phrases).
 */
export function testdataRecordings(): { set: string; utterances: Utterance[] }[] {
  const sets = [
    { set: 'librivox', dir: `${TESTDATA_DIR}/librivox`, transcription: 'transcription' },
    { set: 'cards', dir: `${TESTDATA_DIR}/cards`, transcription: 'cards.transcription' },
  ];
  const out: { set: string; utterances: Utterance[] }[] = [];
  for (const s of sets) {
    const file = path.join(s.dir, s.transcription);
    if (!existsSync(file)) continue;
    const utterances: Utterance[] = [];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^<s>(.*)<\/s>\s*\((.+)\)$/.exec(line.trim());
      if (!m) continue;
      const wavFile = path.join(s.dir, `${m[2]!}.wav`);
      if (!existsSync(wavFile)) continue;
      const wav = readFileSync(wavFile);
      if (wav.readUInt32LE(24) !== SAMPLE_RATE || wav.readUInt16LE(22) !== 1) continue;
      utterances.push({ id: `${s.set}/${m[2]!}`, reference: m[1]!.trim(), pcm: Buffer.from(pcmFromWav(wav)) });
    }
    if (utterances.length > 0) out.push({ set: s.set, utterances });
  }
  return out;
}
