import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient, EngineCallError, GrpcConfigError } from '../../src/grpc/client';
import type { GrpcClientConfig, GrpcDeploymentTls } from '../../src/grpc/config';
import { countBy, makeTestPki, startFakeEngine, verifyRequest, type FakeEngine, type TestPki } from './helpers';

const CERT_NAME = 'engine.test.invalid';

let pki: TestPki;
let tlsEngine: FakeEngine;
let tlsEngine2: FakeEngine;
let mtlsEngine: FakeEngine;
const clients: { close(): void }[] = [];

beforeAll(async () => {
  pki = makeTestPki(CERT_NAME);
  const keyCert = [{ private_key: pki.serverKey, cert_chain: pki.serverCert }];
  tlsEngine = await startFakeEngine({ name: 'tls', credentials: grpc.ServerCredentials.createSsl(null, keyCert, false) });
  tlsEngine2 = await startFakeEngine({ name: 'tls2', credentials: grpc.ServerCredentials.createSsl(null, keyCert, false) });
  mtlsEngine = await startFakeEngine({ name: 'mtls', credentials: grpc.ServerCredentials.createSsl(pki.ca, keyCert, true) });
});

afterAll(async () => {
  for (const c of clients) c.close();
  for (const e of [tlsEngine, tlsEngine2, mtlsEngine]) await e?.stop();
  pki?.cleanup();
});

function client(config: Partial<GrpcClientConfig> & Pick<GrpcClientConfig, 'target' | 'tlsMode'>, tls?: GrpcDeploymentTls) {
  const c = createEngineClient('SentenceVerification', { deadlineMs: 3000, ...config }, tls);
  clients.push(c);
  return c;
}

async function failure(p: Promise<unknown>): Promise<EngineCallError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineCallError);
  return err as EngineCallError;
}

describe('engine client TLS', () => {
  it('SYSTEM_TRUST with the deployment CA and authority override connects to 127.0.0.1 serving a cert for another name', async () => {
    const c = client({ target: tlsEngine.address, tlsMode: 'SYSTEM_TRUST', authority: CERT_NAME }, { caFile: pki.caFile });
    expect(await c.call('Health', {})).toEqual({ status: 'SERVING', message: 'tls' });
    expect((await c.call('Verify', verifyRequest())).modelName).toBe('tls');
    expect(tlsEngine.calls.at(-1)?.authority).toBe(CERT_NAME);
  });

  it('the authority override also sets :authority on the calls', async () => {
    const c = client({ target: tlsEngine.address, tlsMode: 'SYSTEM_TRUST', authority: `${CERT_NAME}:8443` }, { caFile: pki.caFile });
    await c.call('Health', {});
    expect(tlsEngine.calls.at(-1)?.authority).toBe(`${CERT_NAME}:8443`);
  });

  it('without the authority override the certificate name does not match and the call fails', async () => {
    const c = client({ target: tlsEngine.address, tlsMode: 'SYSTEM_TRUST' }, { caFile: pki.caFile });
    const err = await failure(c.call('Health', {}));
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(err.message).toMatch(new RegExp(`^SentenceVerification.Health on gRPC target '${tlsEngine.address.replace(/\./g, '\\.')}' is unavailable`));
  });

  it('SYSTEM_TRUST without the deployment CA does not trust the self-signed CA', async () => {
    const c = client({ target: tlsEngine.address, tlsMode: 'SYSTEM_TRUST', authority: CERT_NAME }, {});
    const err = await failure(c.call('Health', {}));
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('PLAINTEXT against a TLS engine fails', async () => {
    const c = client({ target: tlsEngine.address, tlsMode: 'PLAINTEXT', deadlineMs: 1500 });
    const err = await failure(c.call('Health', {}));
    expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.INTERNAL]).toContain(err.code);
  });

  it('round-robin over two TLS endpoints sharing one certificate identity via the authority override', async () => {
    const c = client(
      { target: `static:///${tlsEngine.address},${tlsEngine2.address}`, tlsMode: 'SYSTEM_TRUST', authority: CERT_NAME },
      { caFile: pki.caFile },
    );
    for (let i = 0; i < 30 && tlsEngine2.calls.length === 0; i++) await c.call('Verify', verifyRequest());
    tlsEngine.calls.length = 0;
    tlsEngine2.calls.length = 0;
    for (let i = 0; i < 10; i++) await c.call('Verify', verifyRequest());
    expect(countBy([tlsEngine, tlsEngine2])).toEqual({ tls: 5, tls2: 5 });
  });

  it('MTLS with the deployment client certificate is accepted by a server requiring client certificates', async () => {
    const c = client(
      { target: mtlsEngine.address, tlsMode: 'MTLS', authority: CERT_NAME },
      { caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile },
    );
    expect(await c.call('Health', {})).toEqual({ status: 'SERVING', message: 'mtls' });
  });

  it('without a client certificate a server requiring client certificates refuses the call', async () => {
    const c = client({ target: mtlsEngine.address, tlsMode: 'SYSTEM_TRUST', authority: CERT_NAME }, { caFile: pki.caFile });
    const err = await failure(c.call('Health', {}));
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('MTLS without deployment client certificate settings is refused when the client is created', () => {
    expect(() => client({ target: mtlsEngine.address, tlsMode: 'MTLS' }, { caFile: pki.caFile })).toThrow(GrpcConfigError);
    expect(() => client({ target: mtlsEngine.address, tlsMode: 'MTLS' }, {})).toThrow(
      /MTLS requires a client certificate and key in the deployment settings/,
    );
  });

  it('an unreadable deployment certificate file is a clear configuration error', () => {
    expect(() =>
      client({ target: mtlsEngine.address, tlsMode: 'MTLS' }, { certFile: `${pki.dir}/missing.crt`, keyFile: pki.clientKeyFile }),
    ).toThrow(/cannot read the deployment's gRPC client certificate file .*missing\.crt/);
  });
});
