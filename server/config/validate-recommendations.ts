import { fail, finiteNumber, requireObject, requireString, type Json } from './config-json.js';
import type { ProjectConfig } from './config-types.js';
import { MAX_HOLDOUT, reservedNames } from './recommendations-holdout.js';

/**
 * A project's `recommendations` settings: a holdout share from 0 to 50 percent and a currency code; with a holdout, the
 * names of its experiment and metrics are the service's, and the project's own experiences and metrics may not use them.
 */
export function validateRecommendationsSettings(project: Json, path: string): void {
  if (project.recommendations === undefined) return;
  const settings = requireObject(project.recommendations, `${path}.recommendations`);
  if (settings.holdout !== undefined) {
    const holdout = finiteNumber(settings.holdout, `${path}.recommendations.holdout`);
    if (holdout < 0 || holdout > MAX_HOLDOUT) fail(`${path}.recommendations.holdout`, `must be a share between 0 and ${MAX_HOLDOUT} (percent)`);
  }
  if (settings.currency !== undefined && !/^[A-Z]{3}$/.test(requireString(settings.currency, `${path}.recommendations.currency`))) {
    fail(`${path}.recommendations.currency`, 'must be an ISO 4217 code such as "EUR"');
  }
  const reserved = reservedNames(project as unknown as ProjectConfig);
  for (const [field, names] of [['experiences', reserved.experiences], ['metrics', reserved.metrics]] as const) {
    ((project[field] ?? []) as { name?: unknown }[]).forEach((item, i) => {
      if (names.includes(item.name as string)) {
        fail(`${path}.${field}[${i}].name`, `"${String(item.name)}" is the recommendations holdout's own: choose another name`);
      }
    });
  }
}
