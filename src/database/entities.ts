import { join } from 'node:path';

/**
 * Every entity of the service: each `*.entity.ts` beside its module (`recordings/recording.entity.ts`),
 * found by TypeORM's glob for all data sources. A glob rather than a list of classes because the
 * feature folders build on `database/` (json-sql, the owner's pool): importing their entities here
 * would make the folders depend on each other (src/architecture.spec.ts). test/medium/entities.medium-spec.ts
 * proves the set complete (a table without an entity fails) and equal to what the migrations made.
 */
export const ENTITIES = [join(__dirname, '..', '**', '*.entity.{ts,js}')];
