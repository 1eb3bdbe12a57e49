// The shape of one numbered PostgreSQL migration. `schema` is the already-quoted schema identifier.
export interface PostgresMigration {
  /** 1, 2, 3, … with no gaps; recorded in <schema>.schema_migrations once applied. */
  readonly version: number;
  readonly name: string;
  /** Statements run in order, in the migration's transaction. Never edit a released migration: add one. */
  statements(schema: string): readonly string[];
}
