/**
 * Composes the static supergraph (schema/supergraph.graphql) from the subgraphs' own schemas.
 * `--check` fails when the committed file is stale, so CI catches an uncomposed change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeServices } from '@apollo/composition';
import { printSubgraphSchema } from '@apollo/subgraph';
import { gql } from 'graphql-tag';
import { buildSubgraphs, type SubgraphDeps } from './subgraphs';

const here = path.dirname(fileURLToPath(import.meta.url));
const target = path.join(here, 'supergraph.graphql');

export async function composeSupergraph(): Promise<string> {
  // schemas are built without touching a database: resolvers only run at request time
  const subgraphs = await buildSubgraphs({} as SubgraphDeps);
  const result = composeServices(
    subgraphs.map((s) => ({ name: s.name, url: `http://${s.name}.subgraph.invalid/graphql`, typeDefs: gql(printSubgraphSchema(s.schema)) })),
  );
  if (result.errors) throw new Error(`composition failed:\n${result.errors.map((e) => `  ${e.message}`).join('\n')}`);
  return `${result.supergraphSdl.trim()}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sdl = await composeSupergraph();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (current !== sdl) {
      console.error('schema/supergraph.graphql is stale: run `pnpm compose` and commit it');
      process.exit(1);
    }
    console.log('supergraph is up to date');
  } else {
    fs.writeFileSync(target, sdl);
    console.log(`wrote ${path.relative(process.cwd(), target)}`);
  }
}
