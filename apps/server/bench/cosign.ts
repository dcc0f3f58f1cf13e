// The co-signing latency, on the server's own path: `cosign` (cosign/cosign.ts) of the same
// vault spend (an update-leaf spend the user already signed), co-signed, finalized and checked by
// `verifyInputs`, many rounds, two ways in turn:
//  (a) alone: the single guardian key, `localSigner` with its key in this process;
//  (b) the network: `networkSigner` (network-client/network-signer.ts) as the coordinator of three
//      real guardian processes on loopback (`guardian start`, approve-all, their SQLite stores):
//      one round trip, `sign/once` to two guardians over commitments they preprocessed (the
//      coordinator's pool, refilled in the background), the signature, then the same finalize and
//      `verifyInputs`. The warm-up rounds fill the pool.
// The guardians' policy is not counted on either side (the server checks the request before
// `cosign` in both modes; opens.ts measures whole actions). `npm run bench:cosign -w @unit/server`
// runs it alone; bench.ts runs it as one of the root bench's figures.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { HEALTH_MAX_BYTES, readPublic, type PublicTarget } from '@unit/guardian-net';
import { loadGuardianNetwork, networkSigner } from '../src/network-client/network-signer';
import { cosign } from '../src/cosign/cosign';
import { localSigner, type GuardianSigner } from '../src/cosign/signer';
import { startGuardianNetwork } from '../test/guardian-network/signer-harness';
import { fixedSpend, VAULT_INPUT } from './cosign-spend';
import type { Figure } from './measure';

export const COSIGN_GOAL = 1.1;
const WARMUP = 20;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
const ms = (x: number) => `${x.toFixed(2)} ms`;
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

interface Round {
  ms: number;
  cpu: number;
  /** the network's: when the t-th guardian approved, from the start */
  approvedMs?: number;
}

/** One `cosign` of the spend with this signer, timed; throws when the result does not verify. */
async function oneRound(
  signer: GuardianSigner,
  spend: ReturnType<typeof fixedSpend>,
  t: number,
): Promise<Round> {
  const g = { signer, treasuryKey: schnorr.utils.randomSecretKey() };
  let approvedMs: number | undefined;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await cosign(
    g,
    {
      action: 'borrow',
      request: { bench: true },
      nonce: randomBytes(16).toString('hex'),
      onApprovals: (a) => {
        if (approvedMs === undefined && a.approved >= t) approvedMs = performance.now() - started;
      },
    },
    [VAULT_INPUT],
    spend.psbt,
    spend.prevouts,
    null,
  );
  const elapsed = performance.now() - started;
  return { ms: elapsed, cpu: cpuMs(process.cpuUsage(cpu)), ...(approvedMs ? { approvedMs } : {}) };
}

/**
 * A bare loopback round trip to a guardian (GET /v1/health, over the same pinned link as the
 * rounds: TLS on a kept-alive connection when its URL is https): the floor under each round.
 */
async function bareRoundTrip(member: PublicTarget, rounds: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await readPublic(member, '/v1/health', { timeoutMs: 10_000, maxBytes: HEALTH_MAX_BYTES });
    times.push(performance.now() - started);
  }
  return quantile(
    times.sort((a, b) => a - b),
    0.5,
  );
}

/**
 * Runs `rounds` interleaved rounds of each, with the guardian network in `dir` (running, approving
 * every request); answers the judged figure and what else it saw.
 */
export async function measureCosign(
  dir: string,
  rounds: number,
): Promise<{ figure: Figure; lines: string[] }> {
  const files = loadGuardianNetwork(dir);
  const together = networkSigner({ ...files, callTimeoutMs: 10_000 });
  const aloneKey = schnorr.utils.randomSecretKey();
  const alone = localSigner(aloneKey);
  const spendAlone = fixedSpend(alone.guardPubkey);
  const spendTogether = fixedSpend(together.guardPubkey);
  const a: Round[] = [];
  const b: Round[] = [];
  // Interleaved, so the machine's other work weighs on both sides alike.
  for (let i = 0; i < WARMUP + rounds; i++) {
    const single = await oneRound(alone, spendAlone, 1);
    const net = await oneRound(together, spendTogether, files.set.t);
    if (i < WARMUP) continue;
    a.push(single);
    b.push(net);
  }
  const sorted = (rs: Round[], k: 'ms' | 'cpu' | 'approvedMs') =>
    rs.map((r) => r[k] ?? 0).sort((x, y) => x - y);
  const median = (rs: Round[], k: 'ms' | 'cpu' | 'approvedMs') => quantile(sorted(rs, k), 0.5);
  const ratio = median(b, 'ms') / median(a, 'ms');
  // The machine's noise: how far the two halves of the rounds disagree on the ratio.
  const half = Math.floor(rounds / 2);
  const halves = [0, half].map(
    (from) => median(b.slice(from, from + half), 'ms') / median(a.slice(from, from + half), 'ms'),
  );
  const noise = Math.abs(halves[0]! - halves[1]!) / Math.max(...halves);
  const bare = await bareRoundTrip(files.set.members[0]!, 50);
  const groupKey = hex.encode(together.guardPubkey).slice(0, 16);
  const lines = [
    `co-signing one vault input through cosign(), ${rounds} rounds each (after ${WARMUP} warm-up):`,
    `  (a) single guardian key   median ${ms(median(a, 'ms'))}  p95 ${ms(quantile(sorted(a, 'ms'), 0.95))}`,
    `  (b) 2-of-3 network (${groupKey}…)  median ${ms(median(b, 'ms'))}  p95 ${ms(quantile(sorted(b, 'ms'), 0.95))}, ` +
      `t approvals (with their shares) at ${ms(median(b, 'approvedMs'))}`,
    `  CPU of this process per co-signing (medians): single ${ms(median(a, 'cpu'))}, ` +
      `coordinator ${ms(median(b, 'cpu'))} (the guardians' own not counted)`,
    `  bare loopback HTTP round trip ${ms(bare)}; load average ${loadavg()[0]!.toFixed(1)}`,
  ];
  return {
    figure: {
      name: 'co-signing latency, 2-of-3 network vs single key (median)',
      value: ratio,
      goal: { max: COSIGN_GOAL },
      noise,
      unit: '×',
    },
    lines,
  };
}

/** Prints a figure as bench.ts does; true when it holds. */
export function printFigure(f: Figure): boolean {
  const value = f.unit === '' ? f.value.toFixed(2) : `${f.value.toFixed(2)}${f.unit}`;
  const goal = 'max' in f.goal ? `≤ ${f.goal.max}${f.unit}` : `≥ ${f.goal.min.toFixed(2)}`;
  const ok = 'max' in f.goal ? f.value <= f.goal.max : f.value >= f.goal.min;
  console.log(
    `${f.name.padEnd(68)} ${value.padStart(9)}  ${goal.padEnd(8)} ${ok ? 'ok' : 'MISSED'}` +
      ` (noise ${(f.noise * 100).toFixed(0)}%)`,
  );
  return ok;
}

/**
 * A bench file's own entry (`npm run bench:<name> -w @unit/server`): when `moduleUrl` is the script
 * run, prints what `measure` found and sets the exit code by whether every figure holds.
 */
export async function runAlone(
  moduleUrl: string,
  measure: () => Promise<{ figures: Figure[]; lines: string[] }>,
): Promise<void> {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  try {
    const { figures, lines } = await measure();
    for (const line of lines) console.log(line);
    console.log('');
    let ok = true;
    for (const f of figures) ok = printFigure(f) && ok;
    process.exitCode = ok ? 0 : 1;
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const network = await startGuardianNetwork({ policy: 'approve-all' });
  try {
    const rounds = Number(process.env.BENCH_COSIGN_ROUNDS ?? 200);
    const { figure, lines } = await measureCosign(network.dir, rounds);
    for (const line of lines) console.log(line);
    console.log('');
    process.exitCode = printFigure(figure) ? 0 : 1;
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    await network.close();
  }
}
