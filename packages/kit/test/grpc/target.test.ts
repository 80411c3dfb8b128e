import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { createEngineClient, ENGINE_PROTO_DIR, GrpcConfigError } from '../../src/grpc/client';
import { grpcDeploymentTlsFromEnv, validateGrpcClientConfig, type GrpcClientConfig } from '../../src/grpc/config';
import { GrpcTargetError, parseGrpcTarget } from '../../src/grpc/target';

function refused(target: string): string {
  try {
    parseGrpcTarget(target);
  } catch (e) {
    expect(e).toBeInstanceOf(GrpcTargetError);
    return (e as Error).message;
  }
  throw new Error(`target '${target}' was accepted`);
}

describe('gRPC target syntax', () => {
  it('accepts a single host:port (name, IPv4, bracketed IPv6)', () => {
    expect(parseGrpcTarget('engine.internal:50051')).toEqual({
      kind: 'single',
      channelTarget: 'voxgate-dns:///engine.internal:50051',
      addresses: ['engine.internal:50051'],
    });
    expect(parseGrpcTarget('10.0.0.7:443').addresses).toEqual(['10.0.0.7:443']);
    expect(parseGrpcTarget('[::1]:50051')).toMatchObject({ kind: 'single', addresses: ['[::1]:50051'] });
  });

  it('accepts dns:///name:port', () => {
    expect(parseGrpcTarget('dns:///engines.svc.cluster.local:50051')).toEqual({
      kind: 'dns',
      channelTarget: 'voxgate-dns:///engines.svc.cluster.local:50051',
      addresses: ['engines.svc.cluster.local:50051'],
    });
  });

  it('accepts an unprefixed comma list and static:/// as the same fixed list', () => {
    const plain = parseGrpcTarget('a.internal:1,10.0.0.2:2,[fd00::1]:3');
    expect(plain).toEqual({
      kind: 'list',
      channelTarget: 'voxgate-static:///a.internal:1,10.0.0.2:2,[fd00::1]:3',
      addresses: ['a.internal:1', '10.0.0.2:2', '[fd00::1]:3'],
    });
    expect(parseGrpcTarget('static:///a.internal:1,10.0.0.2:2,[fd00::1]:3')).toEqual(plain);
    expect(parseGrpcTarget('static:///only.one:9')).toMatchObject({ kind: 'list', addresses: ['only.one:9'] });
  });

  it('refuses garbage with a reason', () => {
    expect(refused('')).toBe('target is empty');
    expect(refused('engine internal:1')).toMatch(/whitespace/);
    expect(refused('not a target!')).toMatch(/whitespace|not a valid host/);
    expect(refused('bad_host!:50051')).toMatch(/'bad_host!' .*not a valid host name/);
    expect(refused('999.1.1.1:50051')).toMatch(/not a valid host name or IP address/);
    expect(refused('/var/run/engine.sock')).toMatch(/not host:port/);
  });

  it('refuses a missing or invalid port', () => {
    expect(refused('engine.internal')).toMatch(/has no port \(expected host:port\)/);
    expect(refused('engine.internal:')).toMatch(/invalid port ''/);
    expect(refused('engine.internal:http')).toMatch(/invalid port 'http'/);
    expect(refused('engine.internal:0')).toMatch(/port 0 outside 1-65535/);
    expect(refused('engine.internal:70000')).toMatch(/port 70000 outside 1-65535/);
    expect(refused('dns:///engine.internal')).toMatch(/^dns target .*has no port/);
    expect(refused('::1:50051')).toMatch(/IPv6 address without brackets/);
    expect(refused('[::1]')).toMatch(/has no port/);
  });

  it('refuses empty list entries and duplicates', () => {
    expect(refused('a:1,,b:2')).toMatch(/entry 2 of 3 is empty/);
    expect(refused('a:1,b:2,')).toMatch(/entry 3 of 3 is empty/);
    expect(refused('static:///')).toMatch(/static target has no endpoints/);
    expect(refused('static:///a:1,')).toMatch(/entry 2 of 2 is empty/);
    expect(refused('a:1,b')).toMatch(/entry 2: 'b' has no port/);
    expect(refused('a:1,A:1')).toMatch(/lists A:1 more than once/);
  });

  it('refuses unknown schemes and malformed dns/static URIs', () => {
    expect(refused('ipv4:10.0.0.1:50051')).toMatch(/unknown target scheme 'ipv4:'/);
    expect(refused('unix:/run/engine.sock')).toMatch(/unknown target scheme 'unix:'/);
    expect(refused('xds:///engine')).toMatch(/unknown target scheme 'xds:\/\/'/);
    expect(refused('http://engine:80/')).toMatch(/unknown target scheme 'http:\/\/'/);
    expect(refused('dns:engine:50051')).toMatch(/three slashes/);
    expect(refused('dns://8.8.8.8/engine:50051')).toMatch(/names a DNS server/);
    expect(refused('dns:///a:1,b:2')).toMatch(/exactly one name:port/);
    expect(refused('static://x/a:1')).toMatch(/found authority 'x'/);
  });
});

describe('gRPC client configuration validation', () => {
  const valid: GrpcClientConfig = {
    target: 'static:///a.internal:50051,b.internal:50051',
    tlsMode: 'PLAINTEXT',
    deadlineMs: 2000,
    authority: 'engine.internal:443',
    maxInboundMessageBytes: 1 << 20,
    metadata: { 'x-api-key': 'k1', authorization: 'Bearer abc' },
  };

  it('accepts a complete valid configuration and nulls for optional fields', () => {
    expect(validateGrpcClientConfig(valid)).toEqual([]);
    expect(validateGrpcClientConfig({ ...valid, authority: null, maxInboundMessageBytes: null, metadata: null })).toEqual([]);
  });

  it('reports an invalid target with its reason', () => {
    expect(validateGrpcClientConfig({ ...valid, target: 'a:1,,b:2' })).toEqual(['invalid gRPC target: target list entry 2 of 3 is empty (check for a stray comma)']);
  });

  it('requires deadlineMs to be a positive integer', () => {
    for (const deadlineMs of [0, -5, 1.5, Number.NaN]) {
      expect(validateGrpcClientConfig({ ...valid, deadlineMs })).toEqual(['deadlineMs must be a positive integer (milliseconds)']);
    }
  });

  it('requires maxInboundMessageBytes to be positive when set', () => {
    expect(validateGrpcClientConfig({ ...valid, maxInboundMessageBytes: 0 })).toEqual([
      'maxInboundMessageBytes must be a positive integer (bytes) when set',
    ]);
    expect(validateGrpcClientConfig({ ...valid, maxInboundMessageBytes: -1 })).toHaveLength(1);
  });

  it('requires valid gRPC metadata keys and ASCII values', () => {
    const problems = validateGrpcClientConfig({
      ...valid,
      metadata: { 'X-Upper': 'v', 'grpc-timeout': '1S', 'trace-bin': 'x', 'content-type': 'x', ok: 'caf\u00e9', '': 'v' },
    });
    expect(problems).toEqual([
      "metadata key 'X-Upper' must contain only lowercase letters, digits, '-', '_' and '.'",
      "metadata key 'grpc-timeout' must not start with 'grpc-' (reserved by gRPC)",
      "metadata key 'trace-bin' must not end with '-bin' (binary metadata is not supported)",
      "metadata key 'content-type' is a reserved HTTP/2 or gRPC header",
      "metadata value of 'ok' must contain only printable ASCII characters",
      'metadata key must not be empty',
    ]);
  });

  it('requires the authority to be a valid host[:port]', () => {
    expect(validateGrpcClientConfig({ ...valid, authority: 'engine.test.invalid' })).toEqual([]);
    expect(validateGrpcClientConfig({ ...valid, authority: '[::1]:443' })).toEqual([]);
    expect(validateGrpcClientConfig({ ...valid, authority: 'bad host' })).toEqual([expect.stringMatching(/^authority .*not a valid host/)]);
    expect(validateGrpcClientConfig({ ...valid, authority: 'engine:abc' })).toEqual([expect.stringMatching(/^authority .*invalid port 'abc'/)]);
    expect(validateGrpcClientConfig({ ...valid, authority: '' })).toEqual([expect.stringMatching(/must not be empty/)]);
  });

  it('refuses MTLS when the deployment has no client certificate configured', () => {
    const mtls = { ...valid, tlsMode: 'MTLS' as const };
    expect(validateGrpcClientConfig(mtls, {})).toEqual([expect.stringMatching(/MTLS requires a client certificate and key in the deployment settings/)]);
    expect(validateGrpcClientConfig(mtls, { certFile: '/x.crt' })).toHaveLength(1);
    expect(validateGrpcClientConfig(mtls, { certFile: '/x.crt', keyFile: '/x.key' })).toEqual([]);
  });

  it('deployment TLS settings default to GRPC_CA_FILE / GRPC_CLIENT_CERT_FILE / GRPC_CLIENT_KEY_FILE', () => {
    expect(grpcDeploymentTlsFromEnv({})).toEqual({});
    expect(grpcDeploymentTlsFromEnv({ GRPC_CA_FILE: '/ca.pem', GRPC_CLIENT_CERT_FILE: '/c.pem', GRPC_CLIENT_KEY_FILE: ' /k.pem ' })).toEqual({
      caFile: '/ca.pem',
      certFile: '/c.pem',
      keyFile: '/k.pem',
    });
    const saved = { ...process.env };
    try {
      delete process.env.GRPC_CLIENT_CERT_FILE;
      delete process.env.GRPC_CLIENT_KEY_FILE;
      expect(validateGrpcClientConfig({ ...valid, tlsMode: 'MTLS' })).toHaveLength(1);
      process.env.GRPC_CLIENT_CERT_FILE = '/c.pem';
      process.env.GRPC_CLIENT_KEY_FILE = '/k.pem';
      expect(validateGrpcClientConfig({ ...valid, tlsMode: 'MTLS' })).toEqual([]);
    } finally {
      process.env = saved;
    }
  });

  it('createEngineClient refuses an invalid configuration with every problem', () => {
    let err: unknown;
    try {
      createEngineClient('SentenceVerification', { ...valid, target: 'nope', deadlineMs: 0 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GrpcConfigError);
    expect((err as GrpcConfigError).problems).toEqual([
      "invalid gRPC target: target 'nope' has no port (expected host:port)",
      'deadlineMs must be a positive integer (milliseconds)',
    ]);
  });
});

describe('engine contracts', () => {
  it('both protos load together in package voxgate.engines.v1 without name clashes', () => {
    const pkg = protoLoader.loadSync(['sentence_verification.proto', 'speaker_embedding.proto'], { includeDirs: [ENGINE_PROTO_DIR] });
    expect(Object.keys(pkg)).toEqual(
      expect.arrayContaining(['voxgate.engines.v1.SentenceVerification', 'voxgate.engines.v1.SpeakerEmbedding']),
    );
    const sv = pkg['voxgate.engines.v1.SentenceVerification'] as Record<string, unknown>;
    const se = pkg['voxgate.engines.v1.SpeakerEmbedding'] as Record<string, unknown>;
    expect(Object.keys(sv).sort()).toEqual(['GetModelInfo', 'Health', 'Verify']);
    expect(Object.keys(se).sort()).toEqual(['Embed', 'GetModelInfo', 'Health']);
  });
});
