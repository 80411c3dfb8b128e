import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres, { type Sql } from 'postgres';

export type Database = PostgresJsDatabase;

export interface DbHandle {
  sql: Sql;
  db: Database;
  close(): Promise<void>;
}

export interface ConnectOptions {
  max?: number;
  /** Called for every statement sent; tests count queries with it. */
  onQuery?: (query: string) => void;
}

export function connectDatabase(url: string, options: ConnectOptions = {}): DbHandle {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connection: { application_name: 'voxgate' },
    debug: options.onQuery ? (_conn, query) => options.onQuery?.(query) : undefined,
  });
  const db = drizzle(sql);
  return { sql, db, close: () => sql.end({ timeout: 5 }) };
}

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');

/** Applies pending migrations; a Postgres advisory lock inside drizzle's migrator is not
 * guaranteed, so concurrent starters serialize on one of ours. */
export async function applyMigrations(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(7423001)`;
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_DIR, migrationsSchema: 'drizzle' });
    await sql`select pg_advisory_unlock(7423001)`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
