/** Runs the reference ASR engine standalone: PORT (default 50061), HOST (default 127.0.0.1), ASR_MAX_DECODERS. */
import { startAsrEngine } from './server';

const port = Number(process.env.PORT ?? 50061);
const host = process.env.HOST ?? '127.0.0.1';
const maxDecoders = process.env.ASR_MAX_DECODERS ? Number(process.env.ASR_MAX_DECODERS) : undefined;
const engine = await startAsrEngine({ host, port, maxDecoders });
console.log(`asr engine (pocketsphinx) listening on ${host}:${engine.port}`);
const stop = () => {
  void engine.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
