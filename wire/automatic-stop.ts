// Why the service stopped an experiment by itself (an experience's `stoppedBy`, and the audit's `after` of its `stop`):
// the contract the service writes (server/guardrails/) and the console reads (admin/), in one place.

/** A guardrail a variation harmed, or a sample-ratio mismatch, with the numbers. */
export interface AutomaticStop {
  rule: 'guardrail' | 'srm';
  /** ISO 8601. */
  at: string;
  /** `guardrail`: the metric, the variation that harmed it, and the test's numbers. */
  metric?: string;
  variation?: string;
  uplift?: number | null;
  ci?: [number, number] | null;
  pValue?: number | null;
  units?: number;
  phase?: number;
  /** `srm`: the test's p-value. */
  srmPValue?: number | null;
}
