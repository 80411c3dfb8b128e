import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient } from '@voxgate/kit/grpc';
import { wer, words } from '../../../test/support/wer';
import { loadAsrServiceDefinition, pcmFromWav, startAsrEngine, type AsrEngine } from '../src/index';
import type { AsrHealthResponse, AsrModelInfo, AsrRecognizeResponse, AsrSegment, AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse } from '../src/types';

const TESTDATA = '/usr/share/pocketsphinx/test/data/librivox';
const FORMAT = { encoding: 'PCM_S16LE' as const, sampleRateHz: 16000, channels: 1 };

let dir: string;
function synthesize(text: string, voice = 'slt'): Buffer {
  const out = join(dir, `${voice}-${words(text).slice(0, 3).join('-')}.wav`);
  execFileSync('flite', ['-voice', voice, '-t', text, '-o', out]);
  const wav = readFileSync(out);
  expect(wav.readUInt32LE(24), 'flite sample rate').toBe(16000);
  return Buffer.from(pcmFromWav(wav));
}

type Duplex = grpc.ClientDuplexStream<AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse>;
interface AsrClient extends grpc.Client {
  StreamingRecognize(): Duplex;
  Recognize(req: object, cb: (err: grpc.ServiceError | null, res: AsrRecognizeResponse) => void): void;
  Health(req: object, cb: (err: grpc.ServiceError | null, res: AsrHealthResponse) => void): void;
  GetModelInfo(req: object, cb: (err: grpc.ServiceError | null, res: AsrModelInfo) => void): void;
}

let engine: AsrEngine;
let client: AsrClient;

function unary<T>(fn: (cb: (err: grpc.ServiceError | null, res: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, res) => (err ? reject(err) : resolve(res))));
}

interface StreamResult {
  responses: AsrStreamingRecognizeResponse[];
  /** Index in `responses` of the first segment. */
  firstSegmentAt: number;
  segments: AsrSegment[];
  transcript: string;
}

/** Streams PCM in 100 ms chunks, `paceMs` apart (faster than real time), with 1 s of silence after. */
async function stream(pcm: Buffer, paceMs = 10): Promise<StreamResult> {
  const call = client.StreamingRecognize();
  const responses: AsrStreamingRecognizeResponse[] = [];
  const done = new Promise<void>((resolve, reject) => {
    call.on('data', (r: AsrStreamingRecognizeResponse) => responses.push(r));
    call.on('error', reject);
    call.on('end', resolve);
  });
  call.write({ config: { format: FORMAT, language: 'en-US', interimResults: true } });
  const audio = Buffer.concat([Buffer.alloc(8000), pcm, Buffer.alloc(32000)]);
  for (let i = 0; i < audio.length; i += 3200) {
    call.write({ audio: audio.subarray(i, i + 3200) });
    await new Promise((r) => setTimeout(r, paceMs));
  }
  call.end();
  await done;
  const segments = responses.flatMap((r) => (r.segment ? [r.segment] : []));
  return {
    responses,
    firstSegmentAt: responses.findIndex((r) => r.result === 'segment'),
    segments,
    transcript: segments.map((s) => s.transcript).join(' '),
  };
}

const SENTENCE = 'The weather today is sunny and warm with a light breeze from the west.';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'asr-test-'));
  engine = await startAsrEngine({ host: '127.0.0.1', port: 0, maxDecoders: 4 });
  const Ctor = grpc.makeGenericClientConstructor(loadAsrServiceDefinition(), 'SpeechRecognition');
  client = new Ctor(`127.0.0.1:${engine.port}`, grpc.credentials.createInsecure()) as unknown as AsrClient;
});

afterAll(async () => {
  client?.close();
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SpeechRecognition (pocketsphinx reference engine)', () => {
  it('Health answers SERVING', async () => {
    const h = await unary<AsrHealthResponse>((cb) => client.Health({}, cb));
    expect(h.status).toBe('SERVING');
    const info = await unary<AsrModelInfo>((cb) => client.GetModelInfo({}, cb));
    expect(info.supportedSampleRatesHz).toEqual([16000]);
  });

  it('streaming sends partial results before the final segment', async () => {
    const r = await stream(synthesize(SENTENCE));
    const firstPartial = r.responses.findIndex((x) => x.result === 'partial');
    expect(firstPartial).toBeGreaterThanOrEqual(0);
    expect(r.firstSegmentAt).toBeGreaterThan(firstPartial);
  });

  it('the final streaming transcript has a word error rate of at most 0.25 (flite slt and kal16)', async () => {
    for (const [voice, text] of [
      ['slt', SENTENCE],
      ['kal16', 'Please call me tomorrow morning about the meeting with the new customer.'],
    ] as const) {
      const r = await stream(synthesize(text, voice));
      const e = wer(text, r.transcript);
      console.log(`[asr] flite ${voice}: WER ${e.toFixed(3)} — "${r.transcript}"`);
      expect(e).toBeLessThanOrEqual(0.25);
    }
  });

  it('word timings increase and lie inside the audio', async () => {
    const pcm = synthesize(SENTENCE);
    const r = await stream(pcm);
    const audioSeconds = (8000 + pcm.length + 32000) / 32000;
    const all = r.segments.flatMap((s) => s.words);
    expect(all.length).toBeGreaterThan(5);
    let last = 0;
    for (const w of all) {
      expect(w.startSeconds).toBeGreaterThanOrEqual(last);
      expect(w.endSeconds).toBeGreaterThan(w.startSeconds);
      expect(w.endSeconds).toBeLessThanOrEqual(audioSeconds);
      expect(w.confidence).toBeGreaterThanOrEqual(0);
      expect(w.confidence).toBeLessThanOrEqual(1);
      last = w.endSeconds;
    }
    // Speech starts after the 0.25 s of leading silence we added.
    expect(all[0]!.startSeconds).toBeGreaterThanOrEqual(0.2);
    for (const s of r.segments) expect(s.startSeconds).toBeLessThanOrEqual(s.endSeconds);
  });

  it('Recognize on pocketsphinx-testdata recordings has a word error rate of at most 0.40', async () => {
    const lines = readFileSync(`${TESTDATA}/transcription`, 'utf8').split('\n').filter(Boolean);
    let errors = 0;
    let refWords = 0;
    for (const line of lines) {
      const m = /^<s>(.*)<\/s>\s*\((.+)\)$/.exec(line.trim());
      if (!m) continue;
      const [ref, id] = [m[1]!.trim(), m[2]!];
      const res = await unary<AsrRecognizeResponse>((cb) => client.Recognize({ config: { format: FORMAT }, audio: readFileSync(`${TESTDATA}/${id}.wav`) }, cb));
      errors += wer(ref, res.transcript) * words(ref).length;
      refWords += words(ref).length;
      console.log(`[asr] ${id}: RTF ${res.realTimeFactor.toFixed(3)} "${res.transcript}"`);
    }
    expect(refWords).toBeGreaterThan(50);
    const e = errors / refWords;
    console.log(`[asr] librivox testdata WER ${e.toFixed(3)} over ${refWords} words`);
    expect(e).toBeLessThanOrEqual(0.4);
    // ~40 s of speech decoded in one call; slow when the other test worker is busy too
  }, 90_000);

  it('concurrent streams each get their own decoder and the right transcript', async () => {
    const a = 'Open the door and turn on the light.';
    const b = 'Send the report to the finance team.';
    const [ra, rb] = await Promise.all([stream(synthesize(a)), stream(synthesize(b, 'kal16'))]);
    expect(wer(a, ra.transcript)).toBeLessThanOrEqual(0.5);
    expect(wer(b, rb.transcript)).toBeLessThanOrEqual(0.5);
  });

  it('a stream whose first message is audio is refused with INVALID_ARGUMENT', async () => {
    const call = client.StreamingRecognize();
    const err = await new Promise<grpc.ServiceError>((resolve) => {
      call.on('error', resolve);
      call.on('data', () => undefined);
      call.write({ audio: Buffer.alloc(3200) });
      call.end();
    });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it("the kit's engine client calls Health and Recognize and streams audio to partials and segments", async () => {
    const kit = createEngineClient('SpeechRecognition', { target: `127.0.0.1:${engine.port}`, tlsMode: 'PLAINTEXT', deadlineMs: 20_000 });
    try {
      expect((await kit.call('Health', {})).status).toBe('SERVING');
      const pcm = synthesize(SENTENCE);
      const whole = await kit.call('Recognize', { config: { format: FORMAT, language: 'en-US' }, audio: Buffer.concat([Buffer.alloc(8000), pcm, Buffer.alloc(16000)]) });
      expect(wer(SENTENCE, whole.transcript)).toBeLessThanOrEqual(0.25);
      const live = kit.stream('StreamingRecognize');
      live.send({ config: { format: FORMAT, language: 'en-US', interimResults: true } });
      const audio = Buffer.concat([Buffer.alloc(8000), pcm, Buffer.alloc(32000)]);
      const sending = (async () => {
        for (let i = 0; i < audio.length; i += 3200) {
          live.send({ audio: audio.subarray(i, i + 3200) });
          await new Promise((r) => setTimeout(r, 10));
        }
        live.end();
      })();
      const kinds: string[] = [];
      const finals: string[] = [];
      for await (const r of live) {
        if (r.partial) kinds.push('partial');
        if (r.segment) { kinds.push('segment'); finals.push(r.segment.transcript); }
      }
      await sending;
      expect(kinds.indexOf('partial')).toBeGreaterThanOrEqual(0);
      expect(kinds.indexOf('partial')).toBeLessThan(kinds.indexOf('segment'));
      expect(wer(SENTENCE, finals.join(' '))).toBeLessThanOrEqual(0.25);
    } finally {
      kit.close();
    }
  });
});
