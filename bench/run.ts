// `npm run bench`: every benchmark, each printing ratios against a named peer measured in the same run.
// Add a section per bench (a function exported by bench/<name>-bench.ts).
import { formatIngestBench, runIngestBench } from './ingest-bench.js';

const ingest = await runIngestBench({
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  secondsPerRound: Number(process.env.BENCH_SECONDS ?? 8),
});
console.log(formatIngestBench(ingest));
