// What the results endpoint (`GET /v1/{org}/projects/{project}/experiences/{name}/results`) answers: the contract the
// service builds (server/results/) and `<svc-results>` reads (plugins/results/), in one place.

export type MetricType = 'binomial' | 'count' | 'sum';

/** A variation's share of the experiment: its configured weight (percent) and the units exposed to it. */
export interface VariationUnits {
  name: string;
  weight: number;
  units: number;
}

/**
 * One variation's numbers for one metric. Only non-control variations carry the comparison with the control
 * (`uplift` … `risk`); any statistic is `null` when it cannot be computed (no units, too few units, a control mean
 * of 0).
 */
export interface VariationStats {
  name: string;
  units: number;
  total: number;
  mean: number | null;
  stddev: number | null;
  /** Relative difference of the means, (mean − control mean) / control mean. */
  uplift?: number | null;
  /** 95% confidence interval of `uplift`. */
  ci?: [number, number] | null;
  pValue?: number | null;
  chanceToWin?: number | null;
  risk?: number | null;
}

export interface MetricResult {
  name: string;
  type: MetricType;
  /** CUPED was asked for and adjusted the values (there was behaviour before first exposure to adjust by). */
  cupedApplied: boolean;
  variations: VariationStats[];
}

/** The same analysis restricted to the units of one value of a dimension (`device: desktop`). */
export interface DimensionResult {
  name: string;
  value: string;
  units: number;
  variations: VariationUnits[];
  metrics: MetricResult[];
}

/** The answer of `GET …/experiences/{name}/results`. */
export interface ResultsAnswer {
  experience: string;
  control: string;
  units: number;
  /** People exposed to more than one variation: left out of the units. */
  multipleExposures: number;
  /** Sample ratio mismatch check: the units' split against the configured weights. */
  srm: { pValue: number | null; mismatch: boolean };
  variations: VariationUnits[];
  metrics: MetricResult[];
  dimensions?: DimensionResult[];
}
