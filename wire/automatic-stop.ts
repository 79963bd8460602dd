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
  /** `guardrail`: the harm test's own p-value (the comparison alone). */
  pValue?: number | null;
  /**
   * `guardrail`: the p-value the stop was decided on, `pValue` adjusted by `correction` across the family of every
   * guardrail × challenger (below alpha: a stop).
   */
  pValueAdjusted?: number;
  /** `guardrail`: how many tests of harm the family holds: the experiment's guardrails × its challengers. */
  familySize?: number;
  /** `guardrail`: the correction across the family. */
  correction?: 'holm-bonferroni';
  units?: number;
  phase?: number;
  /** `srm`: the test's p-value. */
  srmPValue?: number | null;
}
