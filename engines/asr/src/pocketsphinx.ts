/**
 * A small koffi binding of the pocketsphinx 5prealpha C API (Debian's libpocketsphinx.so.3 and
 * libsphinxbase.so.3), and a per-stream {@link Recognizer} on top of it.
 *
 * Only the calls below are bound; their C signatures (pocketsphinx.h / cmd_ln.h / logmath.h of
 * 5prealpha) are in the declarations. Pitfalls handled here:
 * - `ps_seg_iter` took an `int32 *out_best_score` in 0.8 and takes none in 5prealpha; we declare
 *   the out-parameter and always pass a valid buffer, which is correct for both ABIs.
 * - `ps_seg_next` frees the iterator when it returns NULL; `ps_seg_free` is only for stopping early.
 * - `ps_get_hyp` / `ps_seg_word` return strings owned by the decoder: copied immediately.
 * - Voice-activity detection only works with `-remove_silence yes` (with `no`, `ps_get_in_speech`
 *   stays true after the first frames). Silence frames are then skipped by the search, but
 *   `ps_seg_frames` still counts every frame in audio time, and counts from the last
 *   `ps_start_stream` (or decoder creation), NOT from `ps_start_utt` (measured with known
 *   silence lengths). So each stream calls `ps_start_stream` and word time = frame × 10 ms.
 * - Native memory is freed deterministically by {@link Decoder.free} (`ps_free`); the config is
 *   released right after `ps_init`, which keeps its own reference.
 */
import { existsSync } from 'node:fs';
import koffi, { type LibraryHandle, type TypeObject } from 'koffi';

type TypeSpec = string | TypeObject | ReturnType<typeof koffi.out>;

/** Where Debian's pocketsphinx-en-us puts the US English model. */
export const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

/** Frames are 10 ms at the default -frate 100. */
export const FRAME_SECONDS = 0.01;
/** The model's sample rate. */
export const SAMPLE_RATE_HZ = 16_000;

const Decoder_t = koffi.opaque('ps_decoder_t');
const Config_t = koffi.opaque('cmd_ln_t');
const Seg_t = koffi.opaque('ps_seg_t');
const Logmath_t = koffi.opaque('logmath_t');
const Arg_t = koffi.opaque('arg_t');
const DecoderPtr = koffi.pointer(Decoder_t);
const ConfigPtr = koffi.pointer(Config_t);
const SegPtr = koffi.pointer(Seg_t);
const LogmathPtr = koffi.pointer(Logmath_t);
const ArgPtr = koffi.pointer(Arg_t);

/** An opaque native pointer as koffi hands it out (never dereferenced in JS). */
type NativePtr = object;

interface PocketsphinxApi {
  ps_args(): NativePtr;
  cmd_ln_parse_r(inout: NativePtr | null, defn: NativePtr, argc: number, argv: string[], strict: number): NativePtr | null;
  cmd_ln_free_r(config: NativePtr): number;
  ps_init(config: NativePtr): NativePtr | null;
  ps_free(ps: NativePtr): number;
  ps_start_stream(ps: NativePtr): number;
  ps_start_utt(ps: NativePtr): number;
  ps_process_raw(ps: NativePtr, data: Int16Array, nSamples: number, noSearch: number, fullUtt: number): number;
  ps_end_utt(ps: NativePtr): number;
  ps_get_hyp(ps: NativePtr, outBestScore: Int32Array): string | null;
  ps_get_in_speech(ps: NativePtr): number;
  ps_get_n_frames(ps: NativePtr): number;
  ps_get_logmath(ps: NativePtr): NativePtr;
  ps_seg_iter(ps: NativePtr, outBestScore: Int32Array): NativePtr | null;
  ps_seg_next(seg: NativePtr): NativePtr | null;
  ps_seg_word(seg: NativePtr): string | null;
  ps_seg_frames(seg: NativePtr, outSf: Int32Array, outEf: Int32Array): void;
  ps_seg_prob(seg: NativePtr, outAscr: Int32Array, outLscr: Int32Array, outLback: Int32Array): number;
  ps_seg_free(seg: NativePtr): void;
  logmath_exp(lmath: NativePtr, logbP: number): number;
}

let api: PocketsphinxApi | null = null;

/** Loads the shared libraries once (throws when they are missing). */
export function pocketsphinx(): PocketsphinxApi {
  if (api) return api;
  const ps = koffi.load('libpocketsphinx.so.3');
  const sb = koffi.load('libsphinxbase.so.3');
  const f = (lib: LibraryHandle, name: string, result: TypeSpec, args: TypeSpec[]) => lib.func(name, result, args);
  const i32p = koffi.pointer('int32_t');
  const bound = {
    ps_args: f(ps, 'ps_args', ArgPtr, []),
    cmd_ln_parse_r: f(sb, 'cmd_ln_parse_r', ConfigPtr, [ConfigPtr, ArgPtr, 'int32_t', koffi.pointer('const char *'), 'int32_t']),
    cmd_ln_free_r: f(sb, 'cmd_ln_free_r', 'int', [ConfigPtr]),
    ps_init: f(ps, 'ps_init', DecoderPtr, [ConfigPtr]),
    ps_free: f(ps, 'ps_free', 'int', [DecoderPtr]),
    ps_start_stream: f(ps, 'ps_start_stream', 'int', [DecoderPtr]),
    ps_start_utt: f(ps, 'ps_start_utt', 'int', [DecoderPtr]),
    ps_process_raw: f(ps, 'ps_process_raw', 'int', [DecoderPtr, koffi.pointer('int16_t'), 'size_t', 'int', 'int']),
    ps_end_utt: f(ps, 'ps_end_utt', 'int', [DecoderPtr]),
    ps_get_hyp: f(ps, 'ps_get_hyp', 'const char *', [DecoderPtr, koffi.out(i32p)]),
    ps_get_in_speech: f(ps, 'ps_get_in_speech', 'uint8_t', [DecoderPtr]),
    ps_get_n_frames: f(ps, 'ps_get_n_frames', 'int', [DecoderPtr]),
    ps_get_logmath: f(ps, 'ps_get_logmath', LogmathPtr, [DecoderPtr]),
    ps_seg_iter: f(ps, 'ps_seg_iter', SegPtr, [DecoderPtr, koffi.out(i32p)]),
    ps_seg_next: f(ps, 'ps_seg_next', SegPtr, [SegPtr]),
    ps_seg_word: f(ps, 'ps_seg_word', 'const char *', [SegPtr]),
    ps_seg_frames: f(ps, 'ps_seg_frames', 'void', [SegPtr, koffi.out(i32p), koffi.out(i32p)]),
    ps_seg_prob: f(ps, 'ps_seg_prob', 'int32_t', [SegPtr, koffi.out(i32p), koffi.out(i32p), koffi.out(i32p)]),
    ps_seg_free: f(ps, 'ps_seg_free', 'void', [SegPtr]),
    logmath_exp: f(sb, 'logmath_exp', 'double', [LogmathPtr, 'int']),
  };
  api = bound as unknown as PocketsphinxApi;
  return api;
}

export interface DecoderOptions {
  /** Model directory holding `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`. */
  modelDir?: string;
  /** Extra pocketsphinx command-line arguments, e.g. `['-beam', '1e-40']`. */
  extraArgs?: string[];
  /**
   * pocketsphinx `-remove_silence` (default true). It must stay on for voice-activity detection:
   * with it off, `ps_get_in_speech` reports speech forever. Segment frame numbers still count
   * every frame since `ps_start_utt` (measured), so word times stay audio time.
   */
  removeSilence?: boolean;
}

/** Command-line arguments for a decoder over the en-us model (silence kept, logs discarded). */
export function decoderArgs(options: DecoderOptions = {}): string[] {
  const dir = options.modelDir ?? DEFAULT_MODEL_DIR;
  return [
    '-hmm', `${dir}/en-us`,
    '-lm', `${dir}/en-us.lm.bin`,
    '-dict', `${dir}/cmudict-en-us.dict`,
    '-samprate', String(SAMPLE_RATE_HZ),
    '-remove_silence', options.removeSilence === false ? 'no' : 'yes',
    '-logfn', '/dev/null',
    ...(options.extraArgs ?? []),
  ];
}

/** True when the default model files are installed. */
export function modelInstalled(modelDir = DEFAULT_MODEL_DIR): boolean {
  return existsSync(`${modelDir}/en-us/mdef`) && existsSync(`${modelDir}/en-us.lm.bin`) && existsSync(`${modelDir}/cmudict-en-us.dict`);
}

/** A recognised word; times in seconds from the start of the stream. */
export interface RecognizedWord {
  word: string;
  startSeconds: number;
  endSeconds: number;
  /** Posterior probability of the word, 0..1. */
  confidence: number;
}

/** A finished utterance. */
export interface RecognizedSegment {
  transcript: string;
  words: RecognizedWord[];
  /** Seconds from the start of the stream. */
  startSeconds: number;
  endSeconds: number;
  /** Mean word confidence, 0..1 (0 when there are no words). */
  confidence: number;
}

/** Non-word tokens pocketsphinx emits in segmentations. */
function isFiller(word: string): boolean {
  return word === '<s>' || word === '</s>' || word === '<sil>' || /^\[.*\]$/.test(word) || /^\+\+.*\+\+$/.test(word);
}

/** Dictionary alternates are written `word(2)`; the surface form drops the suffix. */
function surface(word: string): string {
  return word.replace(/\(\d+\)$/, '');
}

/**
 * One pocketsphinx decoder (acoustic model, dictionary and language model loaded: about
 * 0.3–1 s and tens of MB each). Not thread-safe; Node calls it from one thread only.
 */
export class Decoder {
  private ptr: NativePtr | null;
  private readonly logmath: NativePtr;
  readonly loadMs: number;

  constructor(options: DecoderOptions = {}) {
    const ps = pocketsphinx();
    const started = performance.now();
    const args = decoderArgs(options);
    const config = ps.cmd_ln_parse_r(null, ps.ps_args(), args.length, args, 1);
    if (!config) throw new Error(`pocketsphinx rejected its configuration: ${args.join(' ')}`);
    const ptr = ps.ps_init(config);
    ps.cmd_ln_free_r(config);
    if (!ptr) throw new Error(`pocketsphinx could not load the model in ${options.modelDir ?? DEFAULT_MODEL_DIR}`);
    this.ptr = ptr;
    this.logmath = ps.ps_get_logmath(ptr);
    this.loadMs = performance.now() - started;
  }

  get freed(): boolean {
    return this.ptr === null;
  }

  private handle(): NativePtr {
    if (!this.ptr) throw new Error('pocketsphinx decoder already freed');
    return this.ptr;
  }

  /** Resets the stream clock: later segment frames count from here. */
  startStream(): void {
    if (pocketsphinx().ps_start_stream(this.handle()) < 0) throw new Error('ps_start_stream failed');
  }

  startUtt(): void {
    if (pocketsphinx().ps_start_utt(this.handle()) < 0) throw new Error('ps_start_utt failed');
  }

  processRaw(samples: Int16Array): void {
    if (samples.length === 0) return;
    if (pocketsphinx().ps_process_raw(this.handle(), samples, samples.length, 0, 0) < 0) throw new Error('ps_process_raw failed');
  }

  endUtt(): void {
    if (pocketsphinx().ps_end_utt(this.handle()) < 0) throw new Error('ps_end_utt failed');
  }

  inSpeech(): boolean {
    return pocketsphinx().ps_get_in_speech(this.handle()) !== 0;
  }

  /** Frames searched so far in the current utterance. */
  frames(): number {
    return pocketsphinx().ps_get_n_frames(this.handle());
  }

  hypothesis(): string {
    const score = new Int32Array(1);
    return pocketsphinx().ps_get_hyp(this.handle(), score) ?? '';
  }

  /**
   * Words of the current (ended) utterance. Frames (10 ms) count from the last `ps_start_stream`
   * across utterances, so times are seconds from the start of the stream.
   */
  words(): RecognizedWord[] {
    const ps = pocketsphinx();
    const h = this.handle();
    const out: RecognizedWord[] = [];
    const score = new Int32Array(1);
    const sf = new Int32Array(1);
    const ef = new Int32Array(1);
    const ascr = new Int32Array(1);
    const lscr = new Int32Array(1);
    const lback = new Int32Array(1);
    for (let seg = ps.ps_seg_iter(h, score); seg; seg = ps.ps_seg_next(seg)) {
      const raw = ps.ps_seg_word(seg) ?? '';
      if (isFiller(raw)) continue;
      ps.ps_seg_frames(seg, sf, ef);
      const logProb = ps.ps_seg_prob(seg, ascr, lscr, lback);
      const p = ps.logmath_exp(this.logmath, logProb);
      const confidence = Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 0;
      out.push({
        word: surface(raw),
        startSeconds: (sf[0] ?? 0) * FRAME_SECONDS,
        endSeconds: ((ef[0] ?? 0) + 1) * FRAME_SECONDS,
        confidence,
      });
    }
    return out;
  }

  /** Releases the native decoder (idempotent). */
  free(): void {
    if (!this.ptr) return;
    pocketsphinx().ps_free(this.ptr);
    this.ptr = null;
  }
}

export interface RecognizerEvents {
  /** A changed partial hypothesis of the utterance in progress. */
  partial?: (text: string, startSeconds: number) => void;
  /** A finished utterance (end of speech detected, or {@link Recognizer.finish}). */
  segment?: (segment: RecognizedSegment) => void;
}

/**
 * Recognition of one audio stream: feed 16 kHz mono PCM, get partial hypotheses and segments.
 * Utterances end when pocketsphinx's voice-activity detector leaves speech (`ps_get_in_speech`
 * going from true to false, after its ~0.5 s silence hangover).
 */
export class Recognizer {
  private samplesFed = 0;
  /** Samples fed before the current ps_start_utt (where its frame 0 is). */
  private uttStartSample = 0;
  private uttHasSpeech = false;
  private lastPartial = '';
  private finished = false;

  constructor(
    private readonly decoder: Decoder,
    private readonly events: RecognizerEvents = {},
    /** Emit partial hypotheses at most every this many samples (default 200 ms). */
    private readonly partialEverySamples = SAMPLE_RATE_HZ / 5,
  ) {
    decoder.startStream();
    decoder.startUtt();
  }

  private sinceLastPartial = 0;

  get audioSeconds(): number {
    return this.samplesFed / SAMPLE_RATE_HZ;
  }

  /** Feeds PCM samples (any length); emits partials and segments synchronously. */
  feed(samples: Int16Array): void {
    if (this.finished) throw new Error('recognizer already finished');
    // Feed in ≤ 100 ms slices so voice-activity transitions are seen close to where they happen.
    const slice = SAMPLE_RATE_HZ / 10;
    for (let i = 0; i < samples.length; i += slice) {
      const part = samples.subarray(i, Math.min(samples.length, i + slice));
      this.decoder.processRaw(part);
      this.samplesFed += part.length;
      this.sinceLastPartial += part.length;
      const inSpeech = this.decoder.inSpeech();
      if (inSpeech) this.uttHasSpeech = true;
      if (this.uttHasSpeech && !inSpeech) {
        this.endUtterance(true);
        continue;
      }
      if (this.uttHasSpeech && this.sinceLastPartial >= this.partialEverySamples) {
        this.sinceLastPartial = 0;
        const hyp = this.decoder.hypothesis();
        if (hyp && hyp !== this.lastPartial) {
          this.lastPartial = hyp;
          this.events.partial?.(hyp, this.uttStartSample / SAMPLE_RATE_HZ);
        }
      }
    }
  }

  private endUtterance(restart: boolean): void {
    this.decoder.endUtt();
    const offset = this.uttStartSample / SAMPLE_RATE_HZ;
    const words = this.decoder.words();
    const hyp = this.decoder.hypothesis();
    if (words.length > 0 || hyp) {
      const transcript = words.length > 0 ? words.map((w) => w.word).join(' ') : hyp;
      const first = words[0];
      const last = words[words.length - 1];
      this.events.segment?.({
        transcript,
        words,
        startSeconds: first ? first.startSeconds : offset,
        endSeconds: last ? last.endSeconds : this.samplesFed / SAMPLE_RATE_HZ,
        confidence: words.length > 0 ? words.reduce((s, w) => s + w.confidence, 0) / words.length : 0,
      });
    }
    this.uttHasSpeech = false;
    this.lastPartial = '';
    this.sinceLastPartial = 0;
    this.uttStartSample = this.samplesFed;
    if (restart) this.decoder.startUtt();
  }

  /** Ends the stream without reporting the utterance in progress (client went away). */
  abort(): void {
    if (this.finished) return;
    this.finished = true;
    this.decoder.endUtt();
  }

  get done(): boolean {
    return this.finished;
  }

  /** Ends the stream: finalizes any utterance in progress. The decoder can then be reused. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.endUtterance(false);
  }
}
