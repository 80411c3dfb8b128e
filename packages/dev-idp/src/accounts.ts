import { createHash, timingSafeEqual } from 'node:crypto';
import type { Account, JsonObject } from 'oidc-provider';

/** A configured user with every optional field resolved. */
export interface DevIdpUserRecord {
  username: string;
  password: string;
  sub: string;
  email: string;
  /** False when the address was synthesised because none was configured. */
  emailVerified: boolean;
  name: string;
}

// RFC 2606 reserves `.invalid`, so a synthesised address can never reach anyone.
export function placeholderEmail(username: string): string {
  return `${encodeURIComponent(username.toLowerCase())}@dev-idp.invalid`;
}

/**
 * A UUID (RFC 9562 version 8, "custom") built from sha256(username), so a
 * user's subject identifier is identical across restarts and machines without
 * being stored anywhere.
 */
export function subjectForUsername(username: string): string {
  const bytes = createHash('sha256').update(`voxgate-dev-idp:${username}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// Hash first so the comparison is constant-time regardless of input length.
function secretEquals(expected: string, provided: string): boolean {
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(provided).digest();
  return timingSafeEqual(a, b);
}

export class UserDirectory {
  private readonly byUsername = new Map<string, DevIdpUserRecord>();
  private readonly bySub = new Map<string, DevIdpUserRecord>();

  constructor(users: readonly DevIdpUserRecord[]) {
    for (const user of users) {
      this.byUsername.set(user.username, user);
      this.bySub.set(user.sub, user);
    }
  }

  /** Returns the user only when both username and password match. */
  authenticate(username: string, password: string): DevIdpUserRecord | undefined {
    const user = this.byUsername.get(username);
    // Compare against a dummy when the user is unknown so timing does not reveal which usernames exist.
    const ok = secretEquals(user?.password ?? '\u0000no-such-user', password);
    return user && ok ? user : undefined;
  }

  findBySub(sub: string): DevIdpUserRecord | undefined {
    return this.bySub.get(sub);
  }

  /** Every claim the user has; oidc-provider masks them by granted scope. */
  static claimsOf(user: DevIdpUserRecord): JsonObject {
    return {
      sub: user.sub,
      preferred_username: user.username,
      name: user.name,
      email: user.email,
      email_verified: user.emailVerified,
    };
  }

  /** Claims copied into JWT access tokens so APIs need no userinfo round trip. */
  static accessTokenClaimsOf(user: DevIdpUserRecord): JsonObject {
    return { preferred_username: user.username, email: user.email, name: user.name };
  }

  accountFor(sub: string): Account | undefined {
    const user = this.findBySub(sub);
    if (!user) return undefined;
    return {
      accountId: user.sub,
      claims: () => UserDirectory.claimsOf(user),
    };
  }
}
