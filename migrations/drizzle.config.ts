import { defineConfig } from 'drizzle-kit';

// Every subgraph declares its tables in src/db/schema.ts under its own Postgres schema.
export default defineConfig({
  dialect: 'postgresql',
  schema: './subgraphs/*/src/db/schema.ts',
  out: './migrations',
  migrations: { schema: 'drizzle' },
});
