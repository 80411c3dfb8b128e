import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';

let t: TestPlatform;
beforeAll(async () => { t = await startTestPlatform(); });
afterAll(async () => { await t?.close(); });

describe('edge health', () => {
  it('answers /healthz while alive', async () => {
    const res = await t.client.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('reports database and redis in /readyz', async () => {
    const res = await t.client.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });
  });

  it('answers unknown REST paths with a problem document', async () => {
    const res = await t.client.get('/api/v1/nope', { apiKey: t.rootKey });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
