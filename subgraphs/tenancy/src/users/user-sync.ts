import { and, count, eq, ne, sql } from 'drizzle-orm';
import { conflict, type Database } from '@voxgate/kit';
import { tenants, users, type TenantRow, type UserRow } from '../db/schema';

export interface ProviderClaims {
  sub: string;
  username: string;
  email: string | null;
  name: string | null;
}

/**
 * Post-login synchronization. The tenant row is locked so two simultaneous first logins cannot
 * both become the owner: the first human user gets the first-login role, later ones the default.
 */
export async function syncUser(db: Database, tenant: TenantRow, claims: ProviderClaims): Promise<{ user: UserRow; created: boolean }> {
  return db.transaction(async (tx) => {
    await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenant.id)).for('update');
    const [existing] = await tx.select().from(users).where(and(eq(users.tenantId, tenant.id), eq(users.subject, claims.sub)));
    const [clash] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.tenantId, tenant.id), sql`lower(${users.username}) = lower(${claims.username})`,
        existing ? ne(users.id, existing.id) : undefined));
    if (clash) throw conflict(`Username "${claims.username}" already belongs to another user of this tenant`);
    const now = new Date();
    if (existing) {
      const [row] = await tx.update(users)
        .set({ username: claims.username, email: claims.email, displayName: claims.name, lastLoginAt: now })
        .where(eq(users.id, existing.id)).returning();
      return { user: row ?? existing, created: false };
    }
    const [humans] = await tx.select({ n: count() }).from(users).where(and(eq(users.tenantId, tenant.id), eq(users.isService, false)));
    const roleId = Number(humans?.n ?? 0) === 0 ? tenant.firstLoginRoleId : tenant.defaultRoleId;
    const [row] = await tx.insert(users).values({
      tenantId: tenant.id, subject: claims.sub, username: claims.username, email: claims.email,
      displayName: claims.name, roleId, lastLoginAt: now,
    }).returning();
    if (!row) throw new Error('user not saved');
    return { user: row, created: true };
  });
}
