import type { ResolvedConfig } from './config.js';

// The service's endpoints for the configured project, built in one place: every name from the config is
// percent-encoded as one path segment.

type Project = Pick<ResolvedConfig, 'api' | 'organization' | 'project'>;

/** `<api>/<organization>/projects/<project>/<path…>`; the Choose and feed URLs are built in requests.ts. */
export function projectUrl(config: Project, ...path: string[]): string {
  return [config.api, encodeURIComponent(config.organization), 'projects', encodeURIComponent(config.project), ...path].join('/');
}

/** `POST …/sources/{sourceId}/track`: event batches. */
export function trackUrl(config: Project & Pick<ResolvedConfig, 'sourceId'>): string {
  return projectUrl(config, 'sources', encodeURIComponent(config.sourceId), 'track');
}

/** `POST …/consents/data`: one consent record. */
export function consentUrl(config: Project): string {
  return projectUrl(config, 'consents', 'data');
}
