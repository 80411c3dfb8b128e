import { pipeline } from 'node:stream/promises';
import { throttleStream, type BlobStore } from '@voxgate/kit';
import type { BinaryResponder } from '@voxgate/rest-facade';
import { recordingKey } from '@voxgate/sessions';

/**
 * GET /speech-services/streams/{id}/recording after the sessions subgraph authorized it: the bytes
 * come from the blob store through a token bucket at the rate the subgraph granted.
 */
export function sessionRecordingResponder(blobs: BlobStore): BinaryResponder {
  return async (value, identity, _req, res) => {
    const sessionId = String(value.sessionId);
    const size = Number(value.sizeBytes);
    const rate = Number(value.downloadBytesPerSecond);
    res.status(200);
    res.setHeader('Content-Type', 'audio/x-pcm');
    res.setHeader('Content-Length', String(size));
    res.setHeader('Content-Disposition', `attachment; filename="session-${sessionId}.pcm"`);
    res.setHeader('X-Audio-Format', 'pcm_s16le; rate=16000; channels=1');
    res.setHeader('X-Download-Rate-Limit', String(rate));
    if (size === 0) return void res.end();
    await pipeline(blobs.read(recordingKey(identity.tenantId as string, sessionId)), throttleStream(rate, Math.min(rate, 64 * 1024)), res);
  };
}
