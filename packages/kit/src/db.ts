import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres, { type Sql } from 'postgres';

export type Database = PostgresJsDatabase;

export interface DbHandle {
  sql: Sql;
  /** single statements, pipelined over a few connections */
  db: Database;
  /** transactions, which hold a connection across round trips and may wait on row locks */
  txDb: Database;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** connections for single statements (DATABASE_POOL_SIZE) */
  poolSize?: number;
  /** connections for transactions (DATABASE_TX_POOL_SIZE) */
  txPoolSize?: number;
  /** Called for every statement sent; tests count queries with it. */
  onQuery?: (query: string) => void;
}

/**
 * Two pools. postgres.js pipelines queued statements on a connection, so a small statement pool
 * keeps syscalls and backend switches low (on the 2-core reference machine, 2 connections served
 * 1.6x the requests of 10). Transactions get their own pool so a slow one never stalls that pipe.
 */
export function connectDatabase(url: string, options: ConnectOptions = {}): DbHandle {
  const make = (max: number, name: string) =>
    postgres(url, {
      max,
      onnotice: () => {},
      connection: { application_name: `voxgate-${name}` },
      debug: options.onQuery ? (_conn, query) => options.onQuery?.(query) : undefined,
    });
  const sql = make(options.poolSize ?? 2, 'statements');
  const txSql = make(options.txPoolSize ?? 8, 'transactions');
  return {
    sql,
    db: drizzle(sql),
    txDb: drizzle(txSql),
    close: async () => { await Promise.all([sql.end({ timeout: 5 }), txSql.end({ timeout: 5 })]); },
  };
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

function hasPgCode(e: unknown, code: string): boolean {
  let cur: unknown = e;
  for (let i = 0; i < 3 && cur && typeof cur === 'object'; i++) {
    if ((cur as { code?: unknown }).code === code) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** A Postgres unique_violation, however deep the driver or ORM wrapped it. */
export const isUniqueViolation = (e: unknown) => hasPgCode(e, '23505');
/** A Postgres foreign_key_violation (a referenced row vanished, or a referencing one remains). */
export const isForeignKeyViolation = (e: unknown) => hasPgCode(e, '23503');
