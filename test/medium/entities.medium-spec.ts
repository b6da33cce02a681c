import { DataSource, EntityMetadata } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { MIGRATIONS_TABLE } from '../../src/database/data-source-options';
import { assertTestDatabase } from '../support/test-app';

/**
 * The entities are the typed model of the schema the migrations made: TypeORM, asked to synchronize
 * them with the migrated database, finds nothing to do. Migrations stay the only writer of the
 * schema (`synchronize: false` everywhere); this only proves the two agree.
 */
describe('entities and migrations', () => {
  let db: DataSource;

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions(assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL), { poolSize: 1, applicationName: 'tests-entities' }),
    ).initialize();
  });
  afterAll(() => db.destroy());

  it("gives TypeORM's schema builder nothing to change", async () => {
    const up = (await db.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query);
    expect(up.join('\n')).toBe('');
  });

  it('has an entity for every table of the schema but the migrations ledger', async () => {
    const tables: Array<{ name: string }> = await db.query(
      `SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition ORDER BY 1`,
    );
    const mapped = db.entityMetadatas.map((m) => m.tableName);
    expect(tables.map((t) => t.name).filter((t) => t !== MIGRATIONS_TABLE && !mapped.includes(t))).toEqual([]);
  });

  /**
   * The entities schema sync skips (`synchronize: false`: a column of a type TypeORM has no name for,
   * or no primary key) are compared here column by column, as TypeORM would see them.
   */
  it('declares every column of the entities schema sync skips, with its database type and nullability', async () => {
    const skipped = db.entityMetadatas.filter((m) => !m.synchronize);
    const runner = db.createQueryRunner();
    try {
      const tables = await runner.getTables(skipped.map((m) => m.tableName));
      const differences = skipped.flatMap((m: EntityMetadata) => {
        const table = tables.find((t) => t.name === m.tableName)!;
        const declared = m.columns.map(
          (c) =>
            `${c.databaseName} ${XID8[`${m.tableName}.${c.databaseName}`] ?? db.driver.normalizeType(c)}${c.isArray ? '[]' : ''} ${c.isNullable ? 'null' : 'not null'}`,
        );
        const actual = table.columns.map((c) => `${c.name} ${c.type}${c.isArray ? '[]' : ''} ${c.isNullable ? 'null' : 'not null'}`);
        return [
          ...declared.filter((d) => !actual.includes(d)).map((d) => `${m.tableName}: entity has ${d}`),
          ...actual.filter((a) => !declared.includes(a)).map((a) => `${m.tableName}: table has ${a}`),
        ];
      });
      expect(skipped.map((m) => m.tableName).sort()).toEqual([
        'audit_event_resources',
        'change_horizons',
        'change_log',
        'webhook_endpoints',
      ]);
      expect(differences).toEqual([]);
    } finally {
      await runner.release();
    }
  });
});

/** xid8 columns: declared as text (TypeORM has no xid8), which is how node-postgres reads them. */
const XID8: Record<string, string> = {
  'change_log.xid': 'xid8',
  'change_horizons.horizon': 'xid8',
  'webhook_endpoints.position_xid': 'xid8',
};
