// Ranking metrics of the offline evaluation (bench/offline-eval.ts), for one answered list against the products the
// visitor went on to use (binary relevance), as defined in Järvelin & Kekäläinen, "Cumulated gain-based evaluation of
// IR techniques" (ACM TOIS 20(4), 2002) for NDCG, and in Manning, Raghavan & Schütze, "Introduction to Information
// Retrieval" (2008, §8.3–8.4) for precision and recall at a cut-off. A product listed twice counts once.

/** Relevant products among the first `k` answered, over `k` (a short list still counts `k` slots). */
export function precisionAt(k: number, answered: readonly string[], relevant: ReadonlySet<string>): number {
  return hitsAt(k, answered, relevant) / k;
}

/** Relevant products among the first `k` answered, over all relevant products (0 when there are none). */
export function recallAt(k: number, answered: readonly string[], relevant: ReadonlySet<string>): number {
  return relevant.size === 0 ? 0 : hitsAt(k, answered, relevant) / relevant.size;
}

/** DCG@k with gain 1 per relevant product: Σ 1 / log2(position + 1), positions from 1. */
export function dcgAt(k: number, answered: readonly string[], relevant: ReadonlySet<string>): number {
  let dcg = 0;
  const seen = new Set<string>();
  answered.slice(0, k).forEach((id, i) => {
    if (relevant.has(id) && !seen.has(id)) dcg += 1 / Math.log2(i + 2);
    seen.add(id);
  });
  return dcg;
}

/** DCG@k over the ideal DCG@k (every relevant product first); 0 when nothing is relevant. */
export function ndcgAt(k: number, answered: readonly string[], relevant: ReadonlySet<string>): number {
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcgAt(k, answered, relevant) / ideal;
}

function hitsAt(k: number, answered: readonly string[], relevant: ReadonlySet<string>): number {
  return new Set(answered.slice(0, k).filter((id) => relevant.has(id))).size;
}

/** The metrics one evaluated feed reports, as means over the evaluated visitors. */
export interface FeedScores {
  queries: number;
  precision5: number;
  recall5: number;
  ndcg5: number;
  precision10: number;
  recall10: number;
  ndcg10: number;
  /** Share of the catalog that appeared in the first 10 of at least one answer. */
  coverage: number;
}

/** Sums one feed's per-visitor metrics and the products it ever answered. */
export class ScoreBoard {
  private queries = 0;
  private readonly sums = { precision5: 0, recall5: 0, ndcg5: 0, precision10: 0, recall10: 0, ndcg10: 0 };
  private readonly shown = new Set<string>();
  /** NDCG@10 per query, in the order added: for paired comparisons of two feeds asked the same queries. */
  readonly ndcg10s: number[] = [];

  add(answered: readonly string[], relevant: ReadonlySet<string>): void {
    this.queries++;
    this.ndcg10s.push(ndcgAt(10, answered, relevant));
    for (const k of [5, 10] as const) {
      this.sums[`precision${k}`] += precisionAt(k, answered, relevant);
      this.sums[`recall${k}`] += recallAt(k, answered, relevant);
      this.sums[`ndcg${k}`] += ndcgAt(k, answered, relevant);
    }
    for (const id of answered.slice(0, 10)) this.shown.add(id);
  }

  scores(catalogSize: number): FeedScores {
    const n = Math.max(1, this.queries);
    const s = this.sums;
    return {
      queries: this.queries, precision5: s.precision5 / n, recall5: s.recall5 / n, ndcg5: s.ndcg5 / n,
      precision10: s.precision10 / n, recall10: s.recall10 / n, ndcg10: s.ndcg10 / n, coverage: this.shown.size / catalogSize,
    };
  }
}

/**
 * The mean of paired differences `a[i] − b[i]` and the half-width of its 95 % confidence interval (normal approximation,
 * 1.96 standard errors): two feeds asked the same queries differ by more than noise when the interval excludes 0.
 */
export function pairedDifference(a: readonly number[], b: readonly number[]): { mean: number; halfWidth: number } {
  const n = Math.min(a.length, b.length);
  if (n < 2) return { mean: n === 1 ? (a[0] as number) - (b[0] as number) : 0, halfWidth: Infinity };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (a[i] as number) - (b[i] as number);
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += ((a[i] as number) - (b[i] as number) - mean) ** 2;
  return { mean, halfWidth: 1.96 * Math.sqrt(squares / (n - 1) / n) };
}
