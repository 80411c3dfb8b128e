import { eq } from 'drizzle-orm';
import type { Database } from '@voxgate/kit';
import { roles, users } from '../db/schema';

export interface DirectoryUser {
  id: string;
  tenantId: string;
  hierarchyOrder: number;
}

/**
 * Other domains address users by id (subscriptions, limit overrides). Before acting on one they
 * ask the tenancy domain's directory which tenant the user belongs to and how they rank; like the
 * edge authenticator, this is tenancy's code reading tenancy's tables, run where it is needed.
 */
export class UserDirectory {
  constructor(private readonly db: Database) {}

  async find(userId: string): Promise<DirectoryUser | null> {
    const [row] = await this.db
      .select({ id: users.id, tenantId: users.tenantId, hierarchyOrder: roles.hierarchyOrder })
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(eq(users.id, userId));
    return row ?? null;
  }
}
