import { readFile } from 'node:fs/promises';
import { ConfigError } from './config-error.js';
import type { ServiceConfigFile } from './config-types.js';
import { validateConfig } from './validate-config.js';

/**
 * Reads and validates a config file; throws ConfigError naming the file and the bad path.
 * @example const config = await loadConfigFile('./svc.config.json');
 */
export async function loadConfigFile(file: string): Promise<ServiceConfigFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError('', `cannot read ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // Where, not what: the parser's message quotes the text around the error, which may be a key's secret.
    const position = /position (\d+)/.exec((error as Error).message);
    const before = position ? text.slice(0, Number(position[1])).split('\n') : null;
    const where = before ? ` at line ${before.length}, column ${(before.at(-1) ?? '').length + 1}` : '';
    throw new ConfigError('', `${file} is not valid JSON${where}`);
  }
  return validateConfig(raw);
}
