// A configuration that cannot be used. It carries EVERY problem found, so an operator fixes them in one go.

export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[], source: string) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`Invalid configuration (${source}): ${count}\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
