// The Choose API with 20 experiments per request, against two named peers measured in the same run:
// (a) over a real socket, the service (Fastify, durable SQLite, sticky assignments, exposures committed before each answer) next to
//     a bare node:http server answering the same JSON without choosing — forked children driven by autocannon
//     from this process, rounds rotating, the median of the rounds' own ratios compared (throughput goal ≥ 0.6)
//     — next to the framework's floor, a Fastify route answering that JSON without choosing, and next to the durable
//     floor, that route plus the cheapest writes that keep Choose's promise (a new unit's first assignments and a new
//     session's exposures committed before the answer), and next to the named peer on that floor, the durable floor
//     choosing each answer with GrowthBook's SDK; each server reports its own CPU time per request too (the cost it
//     pays, which the load generator on the same cores does not blur);
// (b) in process, our engine's per-request evaluation next to @growthbook/growthbook's GrowthBookClient
//     evaluating the same 20 experiments (same seeds, weights, hash version and conditions; cost goal ≤ 1.0).
import { GrowthBookClient, type FeatureApiResponse } from '@growthbook/growthbook';
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { askServer, forkBenchServer } from './server-ipc.js';
import { chooseExperiences } from '../server/choose/engine/choose-engine.js';
import { compileExperiences } from '../server/choose/engine/compile-experiences.js';
import type { AssignmentPort } from '../server/choose/engine/choose-types.js';
import { ATTRIBUTES, NAMES, growthbookFeatures, svcExperiments } from './choose-experiments.js';
import { goalMark } from './goal-mark.js';

export interface ChooseBenchOptions {
  rounds?: number;
  secondsPerRound?: number;
  connections?: number;
  /** Distinct profiles the load cycles through (each gets its 20 assignments stored once). */
  profiles?: number;
  /** Requests per in-process round. */
  evaluations?: number;
  /** The request mixes measured, each as its share of requests from new visitors (0 to 1). */
  newVisitorShares?: number[];
}

export interface HttpSide {
  requestsPerSecond: number[];
  p99Ms: number[];
  medianRps: number;
  medianP99Ms: number;
  /** Median over the rounds of the server's CPU time (user + system, all threads) per request, in µs. */
  cpuUsPerRequest: number;
}

/** One request mix's HTTP comparison. */
export interface ChooseMixResult {
  /** Share of requests from a visitor never seen before. */
  newVisitorShare: number;
  svc: HttpSide;
  bare: HttpSide;
  fastify: HttpSide;
  /** The durable floor (choose-server.ts, --mode=durable). */
  durable: HttpSide;
  /** The durable floor choosing with GrowthBook's SDK (choose-server.ts, --mode=growthbook). */
  growthbook: HttpSide;
  /**
   * svc / bare: the median over rounds of each round's own ratio. Both servers of a round are measured back to back,
   * so a neighbour slowing the shared machine for a while moves both; on this kind of machine the requests per second
   * of one server varied by half from round to round, and a ratio of medians took svc and bare from different rounds.
   */
  throughputRatio: number;
  /** The median svc requests/s over the median bare requests/s (printed next to the paired ratio). */
  ratioOfMedians: number;
  /** fastify / bare, paired per round as throughputRatio: the most any Fastify service can reach in this harness. */
  floorRatio: number;
  /** durable floor / bare, paired per round: the most any service that stores what Choose stores can reach here. */
  durableRatio: number;
  /** svc / durable floor, paired per round: what svc costs beyond the writes its promise needs. */
  svcDurableRatio: number;
  /** GrowthBook on the durable floor / bare, paired per round: the named peer's evaluation with the cheapest writes. */
  growthbookRatio: number;
  errors: number;
  /** Bytes of the answer to a returning visitor on each server (checked to be within 5 %). */
  answerBytes: { svc: number; bare: number };
}

export interface ChooseBenchResult {
  mixes: ChooseMixResult[];
  connections: number;
  engineUsPerRequest: number[];
  growthbookUsPerRequest: number[];
  engineMedianUs: number;
  growthbookMedianUs: number;
  costRatio: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export type Mode = 'svc' | 'bare' | 'fastify' | 'durable' | 'growthbook';

export interface Server {
  child: ChildProcess;
  port: number;
}

export function startServer(mode: Mode, profiles: number): Promise<Server> {
  return forkBenchServer('choose-server.ts', [`--mode=${mode}`, `--profiles=${profiles}`]);
}

/**
 * The mixes, as shares of requests from a visitor never seen before (20 first assignments stored durably, no
 * attributes): returning visitors only; a fifth new, as a shop's page views are (new visitors are a fifth of page
 * views or more); every request new, the worst case. `BENCH_CHOOSE_NEW_VISITORS=0.2` measures one mix.
 */
export const NEW_VISITOR_SHARES = (process.env.BENCH_CHOOSE_NEW_VISITORS ?? '0,0.2,1').split(',').map(Number);
/** Share of returning visitors' requests that start a new session (a visit of four page views on average). */
export const NEW_SESSION_SHARE = Number(process.env.BENCH_CHOOSE_NEW_SESSIONS ?? 0.25);

// The request mix, the same for both servers. Returning visitors (the bench profiles, stored attributes
// `plan: "pro"`) continue their current session or start a new one; a new session's first request writes its 20
// exposures, later ones in the session are repeats (ExposureDedupe). New visitors get fresh profile ids.
const sessions = new Map<number, number>();
let newVisitors = 0;
function body(profiles: number, newVisitorShare: number): string {
  if (Math.random() < newVisitorShare) {
    const profileId = `bench-new-${process.pid}-${newVisitors++}`;
    return JSON.stringify({ identification: { sourceId: 'web', profileId }, names: NAMES, device: 'desktop', sessionId: `${profileId}-s` });
  }
  const visitor = Math.floor(Math.random() * profiles);
  let session = sessions.get(visitor) ?? 0;
  if (Math.random() < NEW_SESSION_SHARE) sessions.set(visitor, ++session);
  return JSON.stringify({
    identification: { sourceId: 'web', profileId: `bench-profile-${visitor}` }, names: NAMES, device: 'desktop',
    sessionId: `bench-s-${visitor}-${session}`,
  });
}

/** Bytes of one answer to a returning visitor: both servers must answer the same JSON (a fairness check). */
async function answerBytes(server: Server): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${server.port}/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identification: { sourceId: 'web', profileId: 'bench-profile-0' }, names: NAMES, device: 'desktop', sessionId: 'size-check' }),
  });
  return (await res.arrayBuffer()).byteLength;
}

export async function load(
  server: Server, seconds: number, connections: number, profiles: number, newVisitorShare: number,
): Promise<{ rps: number; p99: number; errors: number; cpu: number }> {
  const cpuBefore = await askServer(server.child, 'cpu');
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: body(profiles, newVisitorShare) }) }],
  });
  const cpu = (await askServer(server.child, 'cpu') - cpuBefore) / Math.max(1, result.requests.total);
  return { rps: result['2xx'] / seconds, p99: result.latency.p99, errors: result.non2xx + result.errors + result.timeouts, cpu };
}

/** `amount` Choose requests to `server`, the i-th with the body `body(i)`, `connections` at a time. */
async function send(server: Server, connections: number, amount: number, body: (i: number) => string): Promise<void> {
  let next = 0;
  await autocannon({
    url: `http://127.0.0.1:${server.port}/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret`,
    method: 'POST',
    connections,
    amount,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: body(next++) }) }],
  });
}

/** One request per profile, in order, so every profile's assignments are stored before measuring. */
export function firstVisits(server: Server, connections: number, profiles: number): Promise<void> {
  return send(server, connections, profiles, (i) =>
    JSON.stringify({ identification: { sourceId: 'web', profileId: `bench-profile-${i % profiles}` }, names: NAMES, device: 'desktop' }));
}

/**
 * New visitors, more than the service's per-node caches hold (50,000 profiles), before any round: a node that has run
 * for a while has met more visitors than it remembers, so every new one pushes an old one out of each cache. A bench
 * that starts with empty caches measures a node's first minute.
 */
export const CACHE_FILL_VISITORS = 60_000;

export function fillCaches(server: Server, connections: number): Promise<void> {
  return send(server, connections, CACHE_FILL_VISITORS, (i) => {
    const profileId = `bench-fill-${i}`;
    return JSON.stringify({ identification: { sourceId: 'web', profileId }, names: NAMES, device: 'desktop', sessionId: `${profileId}-s` });
  });
}

/** The median of the per-round ratios a / b (the same round of each side). */
function pairedRatio(a: HttpSide, b: HttpSide): number {
  return median(a.requestsPerSecond.map((rps, i) => rps / (b.requestsPerSecond[i] as number)));
}

function side(rounds: { rps: number[]; p99: number[]; cpu: number[] }): HttpSide {
  return {
    requestsPerSecond: rounds.rps, p99Ms: rounds.p99, medianRps: median(rounds.rps), medianP99Ms: median(rounds.p99),
    cpuUsPerRequest: median(rounds.cpu),
  };
}

async function httpRounds(
  options: Required<ChooseBenchOptions>, share: number,
): Promise<{ sides: Record<Mode, HttpSide>; errors: number; answerBytes: { svc: number; bare: number } }> {
  const { rounds, secondsPerRound, connections, profiles } = options;
  const modes: Mode[] = ['svc', 'bare', 'fastify', 'durable', 'growthbook'];
  const servers = new Map<Mode, Server>();
  let bytes = { svc: 0, bare: 0 };
  try {
    for (const mode of modes) servers.set(mode, await startServer(mode, profiles));
    const server = (mode: Mode): Server => servers.get(mode) as Server;
    // Warm-up, not counted: the caches filled (fillCaches), every bench profile once (its 20 first assignments are inserts
    // committed before the answer, one commit per burst of new visitors), then JIT and page cache. The rounds measure
    // the mix.
    for (const mode of ['svc', 'durable', 'growthbook'] as const) {
      await fillCaches(server(mode), connections);
      await firstVisits(server(mode), connections, profiles);
      await load(server(mode), 1, connections, profiles, share);
    }
    await load(server('bare'), 2, connections, profiles, share);
    await load(server('fastify'), 2, connections, profiles, share);
    bytes = { svc: await answerBytes(server('svc')), bare: await answerBytes(server('bare')) };
    // Bare always answers "control"; svc's "treatment" choices are a few bytes longer, nothing more.
    if (Math.abs(bytes.svc - bytes.bare) > 0.05 * bytes.bare) throw new Error(`choose bench: unequal answers (svc ${bytes.svc} B, bare ${bytes.bare} B)`);
    const results = new Map<Mode, { rps: number[]; p99: number[]; cpu: number[] }>(modes.map((m) => [m, { rps: [], p99: [], cpu: [] }]));
    let errors = 0;
    for (let round = 0; round < rounds; round++) {
      // Rotate which goes first so drift (thermal, neighbours) hits all alike.
      const order = modes.map((_, i) => modes[(i + round) % modes.length] as Mode);
      for (const mode of order) {
        const r = await load(server(mode), secondsPerRound, connections, profiles, share);
        errors += r.errors;
        const into = results.get(mode) as { rps: number[]; p99: number[]; cpu: number[] };
        into.rps.push(r.rps);
        into.p99.push(r.p99);
        into.cpu.push(r.cpu);
      }
    }
    const sides = Object.fromEntries(modes.map((m) => [m, side(results.get(m) as { rps: number[]; p99: number[]; cpu: number[] })])) as Record<Mode, HttpSide>;
    return { sides, errors, answerBytes: bytes };
  } finally {
    for (const s of servers.values()) s.child.kill('SIGTERM');
  }
}

/** Microseconds per request of each in-process evaluator, alternating rounds. */
async function evaluationRounds(rounds: number, evaluations: number, profiles: number): Promise<{ engine: number[]; growthbook: number[] }> {
  const experiences = svcExperiments();
  // An in-memory sticky store answering synchronously: a stored assignment read, as on the service's warm path.
  const stored = new Map<string, string>();
  const assignments: AssignmentPort = {
    getOrCreateAssignments(requests) {
      return requests.map(({ experience, unitKey, proposedVariation }) => {
        const key = `${experience}\u0000${unitKey}`;
        const existing = stored.get(key);
        if (existing !== undefined) return existing;
        stored.set(key, proposedVariation);
        return proposedVariation;
      });
    },
  };
  const gb = new GrowthBookClient();
  gb.initSync({ payload: { features: growthbookFeatures() as FeatureApiResponse['features'] } });

  // Compiled once, as the service compiles each project's config once.
  const compiled = compileExperiences(experiences);
  let sink = 0;
  const runEngine = async (n: number): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const profileId = `bench-profile-${i % profiles}`;
      const { choices } = await chooseExperiences(compiled, { names: NAMES, profileId, device: 'desktop', attributes: ATTRIBUTES }, { assignments });
      sink += choices.length;
    }
    return Number(process.hrtime.bigint() - start) / 1000 / n;
  };
  const runGrowthbook = (n: number): number => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      // A server builds one user context per request, then evaluates every experiment for it.
      const user = { attributes: { id: `bench-profile-${i % profiles}`, deviceType: 'desktop', ...ATTRIBUTES } };
      for (const name of NAMES) if (gb.evalFeature(name, user).value !== null) sink++;
    }
    return Number(process.hrtime.bigint() - start) / 1000 / n;
  };

  await runEngine(evaluations);
  runGrowthbook(evaluations);
  const engine: number[] = [];
  const growthbook: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      engine.push(await runEngine(evaluations));
      growthbook.push(runGrowthbook(evaluations));
    } else {
      growthbook.push(runGrowthbook(evaluations));
      engine.push(await runEngine(evaluations));
    }
  }
  // Both served every enrolled experiment: a check that neither side silently skipped work.
  if (sink === 0) throw new Error('choose bench: nothing was evaluated');
  gb.destroy();
  return { engine, growthbook };
}

/**
 * Runs both comparisons and returns medians and ratios.
 * @example const r = await runChooseBench({ rounds: 3, secondsPerRound: 5 });
 */
export async function runChooseBench(options: ChooseBenchOptions = {}): Promise<ChooseBenchResult> {
  const full: Required<ChooseBenchOptions> = {
    rounds: options.rounds ?? 3,
    secondsPerRound: options.secondsPerRound ?? 5,
    connections: options.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 10),
    profiles: options.profiles ?? 1000,
    evaluations: options.evaluations ?? 20_000,
    newVisitorShares: options.newVisitorShares ?? NEW_VISITOR_SHARES,
  };
  const evaluation = await evaluationRounds(Math.max(full.rounds, 5), full.evaluations, full.profiles);
  const mixes: ChooseMixResult[] = [];
  // Each mix on servers started afresh, so one mix's new visitors do not become the next one's returning ones.
  for (const share of full.newVisitorShares) {
    const http = await httpRounds(full, share);
    mixes.push({
      newVisitorShare: share,
      svc: http.sides.svc,
      bare: http.sides.bare,
      fastify: http.sides.fastify,
      durable: http.sides.durable,
      growthbook: http.sides.growthbook,
      throughputRatio: pairedRatio(http.sides.svc, http.sides.bare),
      ratioOfMedians: http.sides.svc.medianRps / http.sides.bare.medianRps,
      floorRatio: pairedRatio(http.sides.fastify, http.sides.bare),
      durableRatio: pairedRatio(http.sides.durable, http.sides.bare),
      svcDurableRatio: pairedRatio(http.sides.svc, http.sides.durable),
      growthbookRatio: pairedRatio(http.sides.growthbook, http.sides.bare),
      errors: http.errors,
      answerBytes: http.answerBytes,
    });
  }
  const engineMedianUs = median(evaluation.engine);
  const growthbookMedianUs = median(evaluation.growthbook);
  return {
    mixes,
    connections: full.connections,
    engineUsPerRequest: evaluation.engine,
    growthbookUsPerRequest: evaluation.growthbook,
    engineMedianUs,
    growthbookMedianUs,
    costRatio: engineMedianUs / growthbookMedianUs,
  };
}

function table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => String(row[i]).length)));
  const line = (row: string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
}

/** Goals per mix: ≥ 0.6 × bare with a fifth of requests from new visitors, ≥ 0.45 × with every one new. */
function goalFor(share: number): number | null {
  if (share === 0.2) return 0.6;
  if (share === 1) return 0.45;
  return null;
}

const percent = (share: number): string => `${Math.round(100 * share)} %`;

function formatMix(m: ChooseMixResult): string[] {
  const rate = (n: number): string => Math.round(n).toLocaleString('en-US');
  const ms = (n: number): string => `${n.toFixed(1)} ms`;
  const us = (n: number): string => `${n.toFixed(1)} µs`;
  const goal = goalFor(m.newVisitorShare);
  return [
    `mix: ${percent(m.newVisitorShare)} new visitors (20 first assignments each, committed before the answer), ${percent(1 - m.newVisitorShare)} returning (stored sticky assignments and attributes; ` +
      `${percent(NEW_SESSION_SHARE)} of their requests start a new session, whose exposures are written); answer ${m.answerBytes.svc} B (svc) / ${m.answerBytes.bare} B (bare)`,
    ...table(['server', 'requests/s (median)', 'rounds', 'vs bare', 'CPU/request', 'p99 (median)', 'p99 rounds'], [
      ['svc (Fastify + SQLite sticky assignments)', rate(m.svc.medianRps), m.svc.requestsPerSecond.map(rate).join(' / '),
        m.throughputRatio.toFixed(2), us(m.svc.cpuUsPerRequest), ms(m.svc.medianP99Ms), m.svc.p99Ms.map(ms).join(' / ')],
      ['bare node:http (parse + same JSON)', rate(m.bare.medianRps), m.bare.requestsPerSecond.map(rate).join(' / '),
        '1.00', us(m.bare.cpuUsPerRequest), ms(m.bare.medianP99Ms), m.bare.p99Ms.map(ms).join(' / ')],
      ['floor: Fastify route (parse + same JSON)', rate(m.fastify.medianRps), m.fastify.requestsPerSecond.map(rate).join(' / '),
        m.floorRatio.toFixed(2), us(m.fastify.cpuUsPerRequest), ms(m.fastify.medianP99Ms), m.fastify.p99Ms.map(ms).join(' / ')],
      ['durable floor: that route + SQLite, one row per new unit', rate(m.durable.medianRps), m.durable.requestsPerSecond.map(rate).join(' / '),
        m.durableRatio.toFixed(2), us(m.durable.cpuUsPerRequest), ms(m.durable.medianP99Ms), m.durable.p99Ms.map(ms).join(' / ')],
      ['peer: the durable floor choosing with GrowthBook\'s SDK', rate(m.growthbook.medianRps), m.growthbook.requestsPerSecond.map(rate).join(' / '),
        m.growthbookRatio.toFixed(2), us(m.growthbook.cpuUsPerRequest), ms(m.growthbook.medianP99Ms), m.growthbook.p99Ms.map(ms).join(' / ')],
    ]),
    `throughput ratio svc / bare = ${m.throughputRatio.toFixed(2)}${goal === null ? '' : ` (goal ${goalMark(m.throughputRatio >= goal, `≥ ${goal}`)})`}; median of the ${m.svc.requestsPerSecond.length} rounds' own ratios ` +
      `${m.svc.requestsPerSecond.map((rps, i) => (rps / (m.bare.requestsPerSecond[i] as number)).toFixed(2)).join(' / ')}; ` +
      `ratio of the medians ${m.ratioOfMedians.toFixed(2)}${m.errors ? `  — ${m.errors} non-2xx/errors` : ''}`,
  ];
}

/** The result as the tables `npm run bench` prints. */
export function formatChooseBench(r: ChooseBenchResult): string {
  const us = (n: number): string => `${n.toFixed(1)} µs`;
  return [
    `Choose API: POST …/optimization/choose-api, 20 experiments per request, ${r.connections} connections, rotating rounds, warm-up excluded`,
    ...r.mixes.flatMap((m) => [...formatMix(m), '']),
    'Choose API, the mixes side by side (ratios paired per round)',
    ...table(['new visitors', 'svc / bare', 'goal', 'durable floor / bare', 'GrowthBook on it / bare', 'svc / durable floor', 'svc CPU/request', 'durable floor CPU/request', 'GrowthBook on it CPU/request', 'bare CPU/request'], r.mixes.map((m) => {
      const goal = goalFor(m.newVisitorShare);
      return [percent(m.newVisitorShare), m.throughputRatio.toFixed(2), goal === null ? '—' : goalMark(m.throughputRatio >= goal, `≥ ${goal}`),
        m.durableRatio.toFixed(2), m.growthbookRatio.toFixed(2), m.svcDurableRatio.toFixed(2), us(m.svc.cpuUsPerRequest), us(m.durable.cpuUsPerRequest),
        us(m.growthbook.cpuUsPerRequest), us(m.bare.cpuUsPerRequest)];
    })),
    'durable floor: the Fastify route plus the writes the promise needs, choosing free (bench/choose-server.ts --mode=durable).',
    'GrowthBook on it: the same floor, each answer chosen by GrowthBookClient.evalFeature ×20, its choices\' JSON built once (--mode=growthbook): a Choose server built on the peer\'s SDK, with no identity, stored targeting or dedupe.',
    'Where the durable floor / bare is below a goal, no server that stores first assignments before the answer reaches that goal on this machine.',
    '',
    'Choose evaluation in process: 20 experiments per request (5 with a condition), per request',
    ...table(['evaluator', 'µs/request (median)', 'rounds'], [
      ['svc chooseExperiences (sticky store in memory)', us(r.engineMedianUs), r.engineUsPerRequest.map(us).join(' / ')],
      ['@growthbook/growthbook GrowthBookClient.evalFeature ×20', us(r.growthbookMedianUs), r.growthbookUsPerRequest.map(us).join(' / ')],
    ]),
    `cost ratio svc / GrowthBook = ${r.costRatio.toFixed(2)} (goal ${goalMark(r.costRatio <= 1, '≤ 1.0')})`,
  ].join('\n');
}
