import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// Vite resolves a bare `graphql` import in workspace sources to graphql's ESM build (its "module"
// field), while type-graphql and Apollo require() the CommonJS build: two graphql realms, and
// "Cannot use GraphQLSchema from another module or realm". Plain Node (tsx, the production entry)
// loads only the CommonJS build, so tests are pinned to the same one.
const graphqlCjs = createRequire(new URL('./packages/kit/package.json', import.meta.url)).resolve('graphql');

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlCjs }] },
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'subgraphs/*/test/**/*.test.ts', 'engines/*/test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: ['default'],
  },
});
