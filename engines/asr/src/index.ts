export { startAsrEngine, loadAsrServiceDefinition, pcmFromWav, DecoderPool, MODEL_NAME, MODEL_VERSION, type AsrEngine, type AsrEngineOptions } from './server';
export { Decoder, Recognizer, DEFAULT_MODEL_DIR, SAMPLE_RATE_HZ, FRAME_SECONDS, modelInstalled, type RecognizedSegment, type RecognizedWord, type RecognizerEvents, type DecoderOptions } from './pocketsphinx';
export * from './types';
