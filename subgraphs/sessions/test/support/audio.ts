import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Decoding test recordings to the streaming format (16 kHz mono s16le) with whichever command-line
 * decoder the machine has: ffmpeg, flac or sox (Debian packages of those names). None installed is
 * an error, not a skip: scripts/prepare.sh is expected to install one.
 */

const DECODERS = ['ffmpeg', 'flac', 'sox'] as const;
type Decoder = (typeof DECODERS)[number];

let found: Decoder | null | undefined;

function which(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function audioDecoder(): Decoder {
  if (found === undefined) found = DECODERS.find(which) ?? null;
  if (!found) throw new Error('no audio decoder: install the Debian package ffmpeg (or flac, or sox)');
  return found;
}

/**
 * Decodes an audio file into `workDir` and returns its samples, 16 kHz mono int16. ffmpeg and sox
 * resample and downmix; flac does not, so with flac the input must already be 16 kHz mono 16-bit
 * (as LibriSpeech is).
 */
export function decodeToPcm16k(file: string, workDir: string): Int16Array {
  const out = path.join(workDir, `${path.basename(file).replace(/\.[^.]+$/, '')}.s16le`);
  const decoder = audioDecoder();
  if (decoder === 'ffmpeg') {
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', file, '-ac', '1', '-ar', '16000', '-f', 's16le', '-acodec', 'pcm_s16le', out]);
  } else if (decoder === 'flac') {
    execFileSync('flac', ['-d', '-s', '-f', '--force-raw-format', '--endian=little', '--sign=signed', '-o', out, file]);
  } else {
    execFileSync('sox', [file, '-r', '16000', '-c', '1', '-b', '16', '-e', 'signed-integer', '-t', 'raw', out]);
  }
  const bytes = readFileSync(out);
  const samples = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(2 * i);
  return samples;
}
