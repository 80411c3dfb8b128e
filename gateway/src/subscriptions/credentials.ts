import type { IncomingMessage } from 'node:http';
import { upgradeCredentials, type SocketCredentials } from '../socket-auth';

/**
 * The credentials of a graphql-ws connection. Browsers cannot set headers on a WebSocket, so the
 * `connection_init` payload carries them (`apiKey`, `accessToken`, or `authorization: "Bearer …"`,
 * the shape Apollo and urql clients send); other clients may use the upgrade request's `X-API-Key` /
 * `Authorization` headers, exactly as on REST. The payload wins when both are present: it is what
 * the client chose for this connection. Never the URL: it ends up in proxy logs.
 */
export function connectionCredentials(payload: Readonly<Record<string, unknown>> | undefined, req: IncomingMessage): SocketCredentials | { invalid: string } | null {
  const fields = new Map(Object.entries(payload ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const apiKey = fields.get('apikey') ?? fields.get('x-api-key');
  const accessToken = fields.get('accesstoken');
  const authorization = fields.get('authorization');
  if (apiKey !== undefined) return typeof apiKey === 'string' ? { apiKey } : { invalid: 'apiKey must be a string' };
  if (accessToken !== undefined) return typeof accessToken === 'string' ? { accessToken } : { invalid: 'accessToken must be a string' };
  if (authorization !== undefined) {
    const m = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    return m ? { accessToken: m[1] } : { invalid: 'authorization must be "Bearer <token>"' };
  }
  return upgradeCredentials(req);
}
