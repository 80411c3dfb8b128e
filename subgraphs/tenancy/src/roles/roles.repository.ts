import { asc, eq, lt } from 'drizzle-orm';
import type { Database } from '@voxgate/kit';
import { roles, type RoleRow } from '../db/schema';
import type { RoleDefinition } from './catalogue';

export class RolesRepository {
  constructor(private readonly db: Database) {}

  async bySlug(slug: string): Promise<RoleRow | null> {
    const [row] = await this.db.select().from(roles).where(eq(roles.slug, slug));
    return row ?? null;
  }

  async below(hierarchyOrder: number): Promise<RoleRow[]> {
    return this.db.select().from(roles).where(lt(roles.hierarchyOrder, hierarchyOrder)).orderBy(asc(roles.hierarchyOrder));
  }

  /** Keeps the built-in roles in step with the catalogue shipped in the code. */
  async upsert(def: RoleDefinition): Promise<RoleRow> {
    const [row] = await this.db
      .insert(roles)
      .values({ slug: def.slug, name: def.name, hierarchyOrder: def.hierarchyOrder, scopes: [...def.scopes] })
      .onConflictDoUpdate({ target: roles.slug, set: { name: def.name, hierarchyOrder: def.hierarchyOrder, scopes: [...def.scopes] } })
      .returning();
    if (!row) throw new Error(`role ${def.slug} not saved`);
    return row;
  }
}
