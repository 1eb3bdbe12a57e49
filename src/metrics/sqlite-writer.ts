// The SQLite writer's group commit in /metrics (docs/storage.md): how many writes it committed and in how
// many transactions. writes ÷ groups is the average group size, i.e. how many flushes group commit saved;
// read at scrape time, nothing runs between scrapes.
import type { MetricsRegistry } from './registry.js';

/** What the writer reports (src/stores/sqlite/writer.ts `SqliteWriter.stats`); named here, not imported. */
export interface GroupCommitStats {
  stats(): { readonly writes: number; readonly groups: number };
}

export function registerSqliteWriterMetrics(registry: MetricsRegistry, writer: GroupCommitStats): void {
  const writes = registry.counter(
    'passkey_sqlite_writes_total',
    'Writes committed by the SQLite writer (credential writes and audit rows).',
  );
  const groups = registry.counter(
    'passkey_sqlite_write_groups_total',
    'Transactions (disk flushes) the SQLite writer committed them in.',
  );
  registry.addCollector(async () => {
    const stats = writer.stats();
    writes.setTotal(stats.writes);
    groups.setTotal(stats.groups);
  });
}
