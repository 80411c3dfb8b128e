import type { Identity } from '@voxgate/kit';

/** Per-request context of the gateway: who is calling, and that identity signed for subgraphs. */
export interface EdgeContext {
  identity: Identity;
  signedIdentity(): Promise<string>;
}
