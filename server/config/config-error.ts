/** A configuration file that cannot be used; the message starts with the bad path. */
export class ConfigError extends Error {
  readonly path: string;

  constructor(path: string, problem: string) {
    super(path ? `${path}: ${problem}` : problem);
    this.name = 'ConfigError';
    this.path = path;
  }
}
