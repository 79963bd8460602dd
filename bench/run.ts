// `npm run bench`: every benchmark, each printing ratios against a named peer measured in the same run.
// Add a section per bench (a function exported by bench/<name>-bench.ts).
import { formatChooseBench, runChooseBench } from './choose-bench.js';
import { formatFeedBench, runFeedBench } from './feed-bench.js';
import { formatFirstAnswerBench, runFirstAnswerBench } from './first-answer-bench.js';
import { formatIngestBench, runIngestBench } from './ingest-bench.js';
import { formatManagementBench, formatPropagationBench, runManagementBench, runPropagationBench } from './management-bench.js';
import { formatPeekingBench, runPeekingBench } from './peeking-bench.js';
import { formatResultsBench, runResultsBench } from './results-bench.js';

// What a page downloads of the SDK, by what it uses, beside GrowthBook's and Segment's script tags (file sizes: instant).
const { formatSdkSizeBench, runSdkSizeBench } = await import('./sdk-size-bench.js');
console.log(formatSdkSizeBench(runSdkSizeBench()));
console.log('');

// Decisions before speed: A/A and A/B experiments read every day, fixed-horizon against sequential (a few seconds).
console.log(formatPeekingBench(...runPeekingBench(Number(process.env.BENCH_PEEKING_EXPERIMENTS ?? 2000))));
console.log('');
const { formatGuardrailFamilyBench, simulateGuardrailFamily } = await import('./guardrail-family-bench.js');
console.log(formatGuardrailFamilyBench(simulateGuardrailFamily({ experiments: Number(process.env.BENCH_GUARDRAIL_EXPERIMENTS ?? 1000) })));
console.log('');

// What the recommendations holdout tells: simulated shops with and without an effect, through the service (minutes).
const { formatHoldoutBench, runHoldoutBench } = await import('./holdout-bench.js');
console.log(formatHoldoutBench(await runHoldoutBench({
  visitors: Number(process.env.BENCH_HOLDOUT_VISITORS ?? 1000), abShops: Number(process.env.BENCH_HOLDOUT_AB ?? 20),
  aaShops: Number(process.env.BENCH_HOLDOUT_AA ?? 100), scaleShops: Number(process.env.BENCH_HOLDOUT_SCALE ?? 5),
})));
console.log('');

const ingest = await runIngestBench({
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  secondsPerRound: Number(process.env.BENCH_SECONDS ?? 8),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
});
console.log(formatIngestBench(ingest));
console.log('');

// The same ingestion while retention deletes a year-old backlog, against the same node without retention (about 6 minutes).
const { formatRetentionBench, runRetentionBench } = await import('./retention-bench.js');
console.log(formatRetentionBench(await runRetentionBench({
  rounds: Number(process.env.BENCH_RETENTION_ROUNDS ?? 5), secondsPerRound: Number(process.env.BENCH_SECONDS ?? 8),
})));
console.log('');
const { formatPartitionBench, runPartitionBench } = await import('./partition-bench.js');
console.log(formatPartitionBench(await runPartitionBench()));
console.log('');

// Shorter rounds than ingestion, three request mixes (returning only, a fifth new visitors, all new) of about 90 s each.
// Five rounds: the goal is a median of per-round ratios, and two cores shared with neighbours drift between rounds.
const choose = await runChooseBench({
  rounds: Number(process.env.BENCH_CHOOSE_ROUNDS ?? process.env.BENCH_ROUNDS ?? 5),
  secondsPerRound: Number(process.env.BENCH_CHOOSE_SECONDS ?? 5),
});
console.log(formatChooseBench(choose));
console.log('');

// A traffic spike: Choose beside ingestion at saturation, on SQLite and PostgreSQL (about 2 minutes).
const { formatMixedLoadBench, runMixedLoadBench } = await import('./mixed-load-bench.js');
console.log(formatMixedLoadBench(await runMixedLoadBench({
  seconds: Number(process.env.BENCH_MIXED_SECONDS ?? 15), chooseRate: Number(process.env.BENCH_MIXED_CHOOSE_RATE ?? 2000),
})));
console.log('');

// The same Choose API while an experiment's weights change once a second through the management API.
console.log(formatManagementBench(await runManagementBench({
  rounds: Number(process.env.BENCH_CHOOSE_ROUNDS ?? process.env.BENCH_ROUNDS ?? 5),
  secondsPerRound: Number(process.env.BENCH_CHOOSE_SECONDS ?? 5),
})));
console.log('');
console.log(formatPropagationBench(await runPropagationBench()));
console.log('');

// A visitor right after a start: the first Choose answer against the same server's later ones.
console.log(formatFirstAnswerBench(await runFirstAnswerBench(Number(process.env.BENCH_FIRST_ANSWER_ROUNDS ?? 5))));
console.log('');

// Feeds at shop scale: 50,000 products, 1,000,000 product events (BENCH_FEED_EVENTS scales the events down).
const feeds = await runFeedBench({
  events: Number(process.env.BENCH_FEED_EVENTS ?? 1_000_000),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
});
console.log(formatFeedBench(feeds));
console.log('');

// Which strategy would have shown visitors what they went on to use: a synthetic shop of 6,000 products and 15,000
// visitors replayed through the service, each feed scored against held-out sessions (about 1–2 minutes;
// BENCH_OFFLINE_VISITORS, BENCH_OFFLINE_PRODUCTS and BENCH_OFFLINE_QUERIES scale it down).
const { formatOfflineEval, offlineEvalOptionsFromEnv, runOfflineEval } = await import('./offline-eval.js');
console.log(formatOfflineEval(await runOfflineEval(offlineEvalOptionsFromEnv())));
console.log('');

// Experiment results at a quarter and at the full 100,000 units / 1,000,000 events (BENCH_RESULTS_SCALES), next to a
// one-query floor over the same tables.
const results = await runResultsBench({
  scales: (process.env.BENCH_RESULTS_SCALES ?? '0.25,1').split(',').map(Number),
  rounds: Number(process.env.BENCH_RESULTS_ROUNDS ?? 5),
});
console.log(formatResultsBench(results));
console.log('');

// The feed report at 1,000,000 impressions and 50,000 clicks, on SQLite and PostgreSQL, next to one SQL aggregate.
const { formatFeedReportBench, runFeedReportBench } = await import('./feed-report-bench.js');
console.log(formatFeedReportBench(await runFeedReportBench({
  scale: Number(process.env.BENCH_FEED_REPORT_SCALE ?? 1), rounds: Number(process.env.BENCH_FEED_REPORT_ROUNDS ?? 5),
})));
console.log('');

// One track() call on the main thread, ours next to @segment/analytics-next in the same Chromium page.
const { formatTrackBench, runTrackBench } = await import('./track-bench.js');
const track = await runTrackBench({
  rounds: Number(process.env.BENCH_TRACK_ROUNDS ?? 15),
  callsPerRound: Number(process.env.BENCH_TRACK_CALLS ?? 200),
});
console.log(formatTrackBench(track));
console.log('');

// What visitors see of an experiment: the flash of the fallback and when the final content is painted.
const { formatFlashBench, runFlashBench } = await import('./flash-bench.js');
console.log(formatFlashBench(await runFlashBench(Number(process.env.BENCH_FLASH_PER_ARM ?? 8))));
console.log('');

// A new visitor's decision: the loader's Choose request without a preflight against one with it.
const { formatLoaderRequestBench, runLoaderRequestBench } = await import('./loader-request-bench.js');
console.log(formatLoaderRequestBench(await runLoaderRequestBench(Number(process.env.BENCH_LOADER_VISITORS ?? 10))));
console.log('');

// What svc costs a page: Lighthouse on a CMS page without and with the README's snippet.
const { formatPageCostBench, runPageCostBench } = await import('./page-cost-bench.js');
console.log(formatPageCostBench(await runPageCostBench(Number(process.env.BENCH_PAGE_COST_ROUNDS ?? 3))));
