// The shape of one numbered SQLite migration. Migrations are TypeScript modules (tsc does not copy .sql
// files into dist/), applied in order at open and recorded in schema_migrations.
export interface SqliteMigration {
  /** 1, 2, 3, … with no gaps. Never edit a released migration: add one. */
  readonly version: number;
  readonly name: string;
  /** Statements run in order, inside the migration's transaction. */
  readonly statements: readonly string[];
}
