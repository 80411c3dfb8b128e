import { toAsrModel, toEmbeddingModel, toSentverModel } from '../models/mappers';
import type { ModelAliasType } from '../shared/graphql-types';
import type { AsrModelAlias, SentverModelAlias, SpeakerEmbeddingModelAlias } from './alias.types';
import type { AliasWithModels } from './aliases.service';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function common(a: AliasWithModels) {
  return {
    alias: a.alias, type: a.type as ModelAliasType, displayName: a.displayName, description: a.description,
    resolvedModel: a.resolved.name, isDefault: a.isDefault, deprecated: a.deprecated,
    deprecationDate: iso(a.deprecationDate), sunsetDate: iso(a.sunsetDate), deprecationMessage: a.deprecationMessage,
    minHierarchyOrder: a.minHierarchyOrder, createdAt: a.createdAt.toISOString(), updatedAt: a.updatedAt.toISOString(),
  };
}

export const toSentverAlias = (a: AliasWithModels): SentverModelAlias => ({
  ...common(a), fallbackModel: a.fallback?.name ?? null, resolved: toSentverModel(a.resolved), fallback: a.fallback ? toSentverModel(a.fallback) : null,
});

export const toEmbeddingAlias = (a: AliasWithModels): SpeakerEmbeddingModelAlias => ({ ...common(a), resolved: toEmbeddingModel(a.resolved) });

export const toAsrAlias = (a: AliasWithModels): AsrModelAlias => ({
  ...common(a), fallbackModel: a.fallback?.name ?? null, resolved: toAsrModel(a.resolved), fallback: a.fallback ? toAsrModel(a.fallback) : null,
});
