// The contract's TypeScript shapes live with the kit's engine client, so engine and callers share one definition.
export type {
  AsrAudioFormat, AsrEncoding, AsrHealthRequest, AsrHealthResponse, AsrModelInfo, AsrModelInfoRequest, AsrPartialResult,
  AsrRecognitionConfig, AsrRecognizeRequest, AsrRecognizeResponse, AsrSegment, AsrStreamingRecognizeRequest,
  AsrStreamingRecognizeResponse, AsrWord,
} from '@voxgate/kit';
