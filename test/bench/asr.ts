/**
 * Suite "asr": the reference engine (engines/asr, pocketsphinx) on its own, through the kit's
 * engine client: word error rate on flite speech and on the pocketsphinx-testdata recordings,
 * real-time factor of whole-file and streaming recognition, and how many real-time streams the
 * engine keeps up with. The engine runs in this process, as `startAsrEngine` does in the engine's
 * own process: every decoder runs on Node's one thread, so the sweep measures one core's worth.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_MODEL_DIR, MODEL_NAME, MODEL_VERSION, modelInstalled, startAsrEngine, type AsrEngine } from '@voxgate/engine-asr';
import { createEngineClient, type EngineClient, type EngineServiceMethods, type EngineStreamingMethods } from '@voxgate/kit/grpc';
import { BENCH_SECONDS, fmt, machineBusySeconds, machineNote, rssMb, sleep, summarize, table } from './common';
import { BYTES_PER_SECOND, FLITE_VOICES, FORMAT, SENTENCES, fliteAvailable, seconds, silence, synthesize, testdataRecordings, type Utterance } from '../support/speech';
import { WerAccumulator } from '../support/wer';

type AsrClient = EngineClient<EngineServiceMethods['SpeechRecognition'], EngineStreamingMethods['SpeechRecognition']>;

/** 100 ms of audio per chunk */
const CHUNK_BYTES = BYTES_PER_SECOND / 10;
const CHUNK_MS = 100;
/** keep-up criteria of the concurrency sweep */
const MAX_FINAL_P95_MS = 1_000;
const MAX_LAG_GROWTH_MS = 250;
const SWEEP = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48];
const MAX_DECODERS = 64;

interface Timed {
  transcript: string;
  wallMs: number;
  audioSeconds: number;
  engineRtf?: number;
}

const padded = (pcm: Buffer): Buffer => Buffer.concat([silence(0.25), pcm, silence(0.5)]);

async function recognize(client: AsrClient, pcm: Buffer): Promise<Timed> {
  const began = performance.now();
  const res = await client.call('Recognize', { config: { format: FORMAT, language: 'en-US' }, audio: pcm });
  return { transcript: res.transcript, wallMs: performance.now() - began, audioSeconds: seconds(pcm), engineRtf: res.realTimeFactor };
}

/** Streams the audio in 100 ms chunks as fast as the transport takes them, partial results on (the platform's default). */
async function streamFast(client: AsrClient, pcm: Buffer): Promise<Timed> {
  const s = client.stream('StreamingRecognize');
  const began = performance.now();
  s.send({ config: { format: FORMAT, language: 'en-US', interimResults: true } });
  for (let i = 0; i < pcm.length; i += CHUNK_BYTES) s.send({ audio: pcm.subarray(i, i + CHUNK_BYTES) });
  s.end();
  const finals: string[] = [];
  for await (const r of s) if (r.segment) finals.push(r.segment.transcript);
  return { transcript: finals.join(' '), wallMs: performance.now() - began, audioSeconds: seconds(pcm) };
}

interface StepResult {
  n: number;
  finalLatencyMs: number[];
  lagEarlyMs: number[];
  lagLateMs: number[];
  errors: string[];
  cpuPercent: number;
  /** busy time of the machine outside this process, % of one core */
  otherPercent: number;
  wallSeconds: number;
}

/**
 * N streams paced at real time: chunk i (100 ms) is sent when its audio would have been captured,
 * at start + (i + 1) × 100 ms, stream starts spread over one chunk period, one timer for all. The
 * final latency is from the end of a stream's audio (its last chunk's due time, followed at once
 * by the half-close) to the end of the engine's answer (the last segment, then OK). The lag is
 * (time since the stream started) − audioProcessedSeconds, sampled on every engine message.
 */
async function pacedStreams(client: AsrClient, n: number, audios: Buffer[]): Promise<StepResult> {
  const cpu0 = process.cpuUsage();
  const machine0 = machineBusySeconds();
  const began = performance.now();
  const t0 = began + 50;
  const errors: string[] = [];
  const finalLatencyMs: number[] = [];
  const lag: { at: number; lag: number; duration: number }[] = [];
  const streams = Array.from({ length: n }, (_, i) => {
    const audio = audios[i % audios.length]!;
    return { audio, chunks: Math.ceil(audio.length / CHUNK_BYTES), startAt: t0 + (i / n) * CHUNK_MS, next: 0, ended: false, stream: client.stream('StreamingRecognize') };
  });
  const receiving = streams.map(async (st) => {
    st.stream.send({ config: { format: FORMAT, language: 'en-US', interimResults: true } });
    const duration = st.chunks * CHUNK_MS;
    try {
      for await (const r of st.stream) {
        const elapsed = performance.now() - st.startAt;
        lag.push({ at: elapsed, lag: elapsed - r.audioProcessedSeconds * 1000, duration });
      }
      finalLatencyMs.push(performance.now() - (st.startAt + duration));
    } catch (e) {
      errors.push(e instanceof Error ? e.message : String(e));
    }
  });
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      let open = 0;
      for (const st of streams) {
        if (st.ended) continue;
        while (st.next < st.chunks && st.startAt + (st.next + 1) * CHUNK_MS <= now) {
          st.stream.send({ audio: st.audio.subarray(st.next * CHUNK_BYTES, (st.next + 1) * CHUNK_BYTES) });
          st.next++;
        }
        if (st.next >= st.chunks) {
          st.stream.end();
          st.ended = true;
        } else open++;
      }
      if (open === 0) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  await Promise.all(receiving);
  const wallSeconds = (performance.now() - began) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    n,
    finalLatencyMs,
    lagEarlyMs: lag.filter((l) => l.at < l.duration / 3).map((l) => l.lag),
    lagLateMs: lag.filter((l) => l.at > (2 * l.duration) / 3).map((l) => l.lag),
    errors,
    cpuPercent: ((cpu.user + cpu.system) / 1e6 / wallSeconds) * 100,
    otherPercent: Math.max(0, ((machineBusySeconds() - machine0 - (cpu.user + cpu.system) / 1e6) / wallSeconds) * 100),
    wallSeconds,
  };
}

export async function runAsrSuite(): Promise<void> {
  if (!modelInstalled()) throw new Error(`pocketsphinx model not found in ${DEFAULT_MODEL_DIR} (bash scripts/prepare.sh installs pocketsphinx-en-us)`);
  if (!fliteAvailable()) throw new Error('flite is not installed (bash scripts/prepare.sh installs it)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vx-bench-asr-'));
  const machine = await machineNote();
  let engine: AsrEngine | null = null;
  let client: AsrClient | null = null;
  try {
    const rssBefore = rssMb(process.pid);
    engine = await startAsrEngine({ host: '127.0.0.1', port: 0, maxDecoders: MAX_DECODERS, warmDecoders: 1 });
    client = createEngineClient('SpeechRecognition', { target: `127.0.0.1:${engine.port}`, tlsMode: 'PLAINTEXT', deadlineMs: 120_000 });
    const info = await client.call('GetModelInfo', {});

    // (a) flite: the ten sentences, the voices taking turns, whole-file Recognize
    const fliteUtterances = SENTENCES.map((text, i) => {
      const voice = FLITE_VOICES[i % FLITE_VOICES.length]!;
      return { voice, u: { id: `${voice}/${i}`, reference: text, pcm: synthesize(dir, text, voice) } as Utterance };
    });
    const whole: Timed[] = [];
    const accuracy: (string | number)[][] = [];
    const fliteAll = new WerAccumulator();
    for (const voice of FLITE_VOICES) {
      const acc = new WerAccumulator();
      for (const { u } of fliteUtterances.filter((f) => f.voice === voice)) {
        const r = await recognize(client, padded(u.pcm));
        whole.push(r);
        acc.add(u.reference, r.transcript);
        fliteAll.add(u.reference, r.transcript);
      }
      accuracy.push([`flite ${voice}`, acc.utterances, acc.referenceWords, fmt(acc.wer, 3)]);
    }
    accuracy.push(['flite, all voices', fliteAll.utterances, fliteAll.referenceWords, fmt(fliteAll.wer, 3)]);

    // (b) pocketsphinx-testdata recordings with transcripts
    const testdata = testdataRecordings();
    const testdataAll = new WerAccumulator();
    for (const { set, utterances } of testdata) {
      const acc = new WerAccumulator();
      for (const u of utterances) {
        const r = await recognize(client, u.pcm);
        whole.push(r);
        acc.add(u.reference, r.transcript);
        testdataAll.add(u.reference, r.transcript);
      }
      accuracy.push([`testdata ${set}`, acc.utterances, acc.referenceWords, fmt(acc.wer, 3)]);
    }
    if (testdata.length > 0) accuracy.push(['testdata, all', testdataAll.utterances, testdataAll.referenceWords, fmt(testdataAll.wer, 3)]);

    // (c) streaming fed as fast as possible: the librivox recordings and one sentence per voice
    const streamed: Timed[] = [];
    const streamAcc = new WerAccumulator();
    const streamSet = [
      ...testdata.filter((t) => t.set === 'librivox').flatMap((t) => t.utterances),
      ...FLITE_VOICES.map((v) => fliteUtterances.find((f) => f.voice === v)!.u),
    ];
    for (const u of streamSet) {
      const r = await streamFast(client, padded(u.pcm));
      streamed.push(r);
      streamAcc.add(u.reference, r.transcript);
    }
    const rtf = (rs: Timed[]) => rs.reduce((s, r) => s + r.wallMs / 1000, 0) / rs.reduce((s, r) => s + r.audioSeconds, 0);
    const audioOf = (rs: Timed[]) => rs.reduce((s, r) => s + r.audioSeconds, 0);
    const wallOf = (rs: Timed[]) => rs.reduce((s, r) => s + r.wallMs / 1000, 0);

    // (d) concurrent real-time streams: sentences back to back (0.8 s apart) until 0.4 × BENCH_SECONDS (at least 3 s)
    const sentencesOf = fliteUtterances.map((f) => f.u);
    const audios: Buffer[] = [];
    for (let k = 0; k < 8; k++) {
      const parts: Buffer[] = [silence(0.25)];
      let total = 0.25;
      for (let j = 0; total < Math.max(3, BENCH_SECONDS * 0.4); j++) {
        const u = sentencesOf[(k + j * 3) % sentencesOf.length]!;
        if (j > 0) parts.push(silence(0.8));
        parts.push(u.pcm);
        total += seconds(u.pcm) + (j > 0 ? 0.8 : 0);
      }
      parts.push(silence(0.3));
      audios.push(Buffer.concat(parts));
    }
    const steps: StepResult[] = [];
    const sweepRows: (string | number)[][] = [];
    let kept = 0;
    let decoderMb = NaN;
    for (const n of SWEEP) {
      if (n > MAX_DECODERS) break;
      const rss0 = rssMb(process.pid);
      const created0 = engine.pool.created;
      engine.pool.warm(n); // decoders exist before the clock starts (creating one takes ~0.3 s)
      if (engine.pool.created > created0) decoderMb = (rssMb(process.pid) - rss0) / (engine.pool.created - created0);
      await sleep(200);
      const r = await pacedStreams(client, n, audios);
      steps.push(r);
      const fin = summarize(r.finalLatencyMs);
      const early = summarize(r.lagEarlyMs);
      const late = summarize(r.lagLateMs);
      const growth = late.p50 - early.p50;
      const ok = r.errors.length === 0 && fin.n === n && fin.p95 < MAX_FINAL_P95_MS && growth < MAX_LAG_GROWTH_MS;
      sweepRows.push([n, fmt(fin.p50, 0), fmt(fin.p95, 0), fmt(late.p95, 0), fmt(growth, 0), fmt(r.cpuPercent, 0), fmt(r.otherPercent, 0), r.errors.length, ok ? 'yes' : 'no']);
      if (r.errors.length > 0) console.log(`  [asr] N=${n}: ${r.errors.length} stream errors, first: ${r.errors[0]}`);
      if (!ok) break;
      kept = n;
    }

    const wholeRtf = whole.map((r) => r.engineRtf ?? NaN);
    console.log(`\nASR reference engine: ${info.name} ${MODEL_VERSION} (${MODEL_NAME === info.name ? 'reference' : 'other'}), in this process through the kit client; Node runs every decoder on one thread; ${machine}`);
    console.log('\naccuracy (whole-file Recognize; corpus WER = word errors / reference words; flite padded with 0.25 s / 0.5 s of silence):');
    console.log(table(['set', 'utterances', 'words', 'WER'], accuracy));
    console.log('\nspeed (real-time factor = processing wall time / audio duration; below 1 is faster than real time):');
    console.log(table(['mode', 'files', 'audio s', 'wall s', 'RTF'], [
      ['whole-file Recognize (client-measured)', whole.length, fmt(audioOf(whole), 1), fmt(wallOf(whole), 2), fmt(rtf(whole), 3)],
      ['whole-file Recognize (engine-reported, mean)', whole.length, '', '', fmt(summarize(wholeRtf).mean, 3)],
      ['streaming, fed as fast as possible (100 ms chunks, partials on)', streamed.length, fmt(audioOf(streamed), 1), fmt(wallOf(streamed), 2), fmt(rtf(streamed), 3)],
    ]));
    console.log(`  streaming WER on those files: ${fmt(streamAcc.wer, 3)} over ${streamAcc.referenceWords} words (utterances end by the engine's voice-activity detection)`);
    const audioSeconds = audios.reduce((s, a) => s + seconds(a), 0) / audios.length;
    console.log(`\nconcurrent real-time streams (100 ms chunks every 100 ms, ${fmt(audioSeconds, 1)} s of speech per stream, partials on; client and engine share this process):`);
    console.log(table(['N', 'final p50 ms', 'final p95 ms', 'lag p95 ms (last third)', 'lag growth ms', 'cpu % of a core', 'other cpu %', 'errors', 'keeps up'], sweepRows));
    console.log('  other cpu = busy time of the machine outside this process (other work on a shared machine; results are only meaningful when it is near 0)');
    console.log(`  final = end of a stream's audio (half-close) to the engine's last segment and OK; lag = wall time since stream start − audioProcessedSeconds`);
    console.log(`  keeps up: no errors, final p95 < ${MAX_FINAL_P95_MS} ms, lag growth (median last third − median first third) < ${MAX_LAG_GROWTH_MS} ms`);
    console.log(`  largest N kept up: ${kept}${kept === SWEEP[SWEEP.length - 1] ? ' (the largest tried)' : ''}; decoder memory ≈ ${fmt(decoderMb, 1)} MB each (RSS ${fmt(rssBefore, 0)} MB before the engine, ${fmt(rssMb(process.pid), 0)} MB with ${engine.pool.created} decoders)`);
  } finally {
    client?.close();
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
