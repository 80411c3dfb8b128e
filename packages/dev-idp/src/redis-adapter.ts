import type { Redis } from 'ioredis';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

// Models whose records carry a grantId and must disappear together when the
// grant is revoked (logout, refresh-token reuse detection, revocation).
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

// Single-use models are stored as hashes so `consume` can flag them with one
// HSET without a read-modify-write of the JSON payload (reuse of a rotated
// refresh token must be detected even under concurrent requests).
const CONSUMABLE = new Set([
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

// HSET on a missing key would create an orphan hash without TTL; only mark
// records that still exist.
const CONSUME_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HSET', KEYS[1], 'consumed', ARGV[1])
end
return 0
`;

function parsePayload(raw: string): AdapterPayload | undefined {
  const parsed: unknown = JSON.parse(raw);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  return parsed as AdapterPayload;
}

class RedisAdapter implements Adapter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly model: string,
  ) {}

  private key(id: string): string {
    return `${this.prefix}${this.model}:${id}`;
  }

  private grantKey(grantId: string): string {
    return `${this.prefix}grant:${grantId}`;
  }

  private userCodeKey(userCode: string): string {
    return `${this.prefix}userCode:${userCode}`;
  }

  private uidKey(uid: string): string {
    return `${this.prefix}uid:${uid}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
    const key = this.key(id);
    const ttl = typeof expiresIn === 'number' && expiresIn > 0 ? Math.ceil(expiresIn) : undefined;
    const multi = this.redis.multi();

    if (CONSUMABLE.has(this.model)) {
      // Replace the whole hash so a re-saved record does not inherit a stale
      // `consumed` field from an earlier version.
      multi.del(key);
      multi.hset(key, { payload: JSON.stringify(payload) });
    } else {
      multi.set(key, JSON.stringify(payload));
    }
    if (ttl !== undefined) multi.expire(key, ttl);

    if (GRANTABLE.has(this.model) && typeof payload.grantId === 'string') {
      const grantKey = this.grantKey(payload.grantId);
      multi.rpush(grantKey, key);
      // The index must live at least as long as the longest member, never shorter.
      const current = await this.redis.ttl(grantKey);
      if (ttl === undefined) {
        multi.persist(grantKey);
      } else if (current !== -1 && ttl > current) {
        multi.expire(grantKey, ttl);
      }
    }

    if (typeof payload.userCode === 'string') {
      const userCodeKey = this.userCodeKey(payload.userCode);
      multi.set(userCodeKey, id);
      if (ttl !== undefined) multi.expire(userCodeKey, ttl);
    }

    if (typeof payload.uid === 'string') {
      const uidKey = this.uidKey(payload.uid);
      multi.set(uidKey, id);
      if (ttl !== undefined) multi.expire(uidKey, ttl);
    }

    const results = await multi.exec();
    const failed = results?.find(([error]) => error !== null);
    if (failed?.[0]) throw failed[0];
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const key = this.key(id);
    if (CONSUMABLE.has(this.model)) {
      const hash = await this.redis.hgetall(key);
      if (typeof hash.payload !== 'string') return undefined;
      const payload = parsePayload(hash.payload);
      if (!payload) return undefined;
      return hash.consumed === undefined ? payload : { ...payload, consumed: Number(hash.consumed) };
    }
    const raw = await this.redis.get(key);
    return raw === null ? undefined : parsePayload(raw);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const id = await this.redis.get(this.uidKey(uid));
    return id === null ? undefined : this.find(id);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const id = await this.redis.get(this.userCodeKey(userCode));
    return id === null ? undefined : this.find(id);
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const grantKey = this.grantKey(grantId);
    const members = await this.redis.lrange(grantKey, 0, -1);
    const multi = this.redis.multi();
    for (const member of members) multi.del(member);
    multi.del(grantKey);
    await multi.exec();
  }

  async consume(id: string): Promise<void> {
    await this.redis.eval(CONSUME_SCRIPT, 1, this.key(id), String(Math.floor(Date.now() / 1000)));
  }
}

/**
 * oidc-provider instantiates one adapter per model name; all of them share the
 * caller's connection and key prefix so several providers (e.g. parallel test
 * files) can use one Redis without seeing each other's data.
 */
export function createRedisAdapterFactory(redis: Redis, prefix: string): AdapterFactory {
  const adapters = new Map<string, RedisAdapter>();
  return (model: string) => {
    let adapter = adapters.get(model);
    if (!adapter) {
      adapter = new RedisAdapter(redis, prefix, model);
      adapters.set(model, adapter);
    }
    return adapter;
  };
}
