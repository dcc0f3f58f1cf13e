// Issue 20's second figure: vault opens per minute with the 2-of-3 guardian network against the
// single guardian (goal: at least 80%). Two real apps run side by side on their own devnets (SQLite,
// temp folders): `alone` signs with its own guardian key (GUARDIAN_NETWORK=off), `network`
// coordinates the guardians of GUARDIAN_DIR (external: the processes run on their own). Each opens
// vault after vault as the web app does (fund the wallet, unit.reserve, build and sign, vault.open:
// test/cluster/instances.ts `openVault`), one at a time, in blocks of BENCH_OPEN_SECONDS taken in
// turn (alone, network, alone, network, ...), so the machine's other work weighs on both alike;
// the figure is the median of the pairs' ratios, its noise their spread.
// `npm run bench:opens -w @unit/server` runs it alone (on a network it starts, or on
// GUARDIAN_NETWORK=external GUARDIAN_DIR=<dir>); bench.ts runs it as one of the root bench's figures.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { loadGuardianNetwork } from '../src/guardian-network/network-signer';
import { openVault } from '../test/cluster/instances';
import { startGuardianNetwork } from '../test/guardian-network/signer-harness';
import { startTestApp, type RunningApp } from '../test/support';
import { printFigure } from './cosign';
import type { Figure } from './measure';

export const OPENS_GOAL = 0.8;
const DEPOSIT = 1_000_000n;
const BORROW = 10_000n;

interface Block {
  perMinute: number;
  failures: string[];
}

/** Opens vaults on `app` for `seconds`, one at a time; answers the count per minute. */
async function openFor(app: RunningApp, seconds: number): Promise<Block> {
  let opens = 0;
  const failures: string[] = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  while (performance.now() < until) {
    try {
      await openVault(app, DEPOSIT, BORROW);
      opens++;
    } catch (e) {
      failures.push((e as Error).message);
      if (failures.length > 5) break;
    }
  }
  return { perMinute: opens / ((performance.now() - started) / 60_000), failures };
}

/**
 * `pairs` blocks of `seconds` on each app in turn, with the guardian network in `dir` (running).
 * Answers the judged figure and what else it saw.
 */
export async function measureOpens(
  dir: string,
  pairs: number,
  seconds: number,
): Promise<{ figure: Figure; lines: string[] }> {
  const { set } = loadGuardianNetwork(dir);
  // Every opening comes from one address: the per-address call limit (120 a minute, two calls an
  // opening) would cap both apps alike at 60 a minute.
  const limits = { guardianLimits: { callsPerAddress: 1_000_000 } };
  const [alone, network] = await Promise.all([
    startTestApp({ GUARDIAN_NETWORK: 'off' }, limits),
    startTestApp({ GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: dir }, limits),
  ]);
  try {
    if (network.keys.guardPubkey !== set.groupKey)
      throw new Error('the network app does not sign with the guardian set’s group key');
    // One warm-up opening each: the first pays for lazy compilation and the treasury's first reads.
    await openVault(alone, DEPOSIT, BORROW);
    await openVault(network, DEPOSIT, BORROW);
    const a: Block[] = [];
    const b: Block[] = [];
    for (let i = 0; i < pairs; i++) {
      a.push(await openFor(alone, seconds));
      b.push(await openFor(network, seconds));
    }
    const ratios = b.map((x, i) => x.perMinute / a[i]!.perMinute).sort((x, y) => x - y);
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const ratio = median(ratios);
    const failures = [...a, ...b].flatMap((x) => x.failures);
    const noise = (ratios.at(-1)! - ratios[0]!) / ratio;
    const rate = (xs: Block[]) => xs.map((x) => x.perMinute.toFixed(0)).join(', ');
    return {
      figure: {
        name: 'vault opens per minute, 2-of-3 network vs alone (median of pairs)',
        // An opening that failed makes the figure meaningless: it counts as a miss.
        value: failures.length === 0 ? ratio : 0,
        goal: { min: OPENS_GOAL },
        noise,
        unit: '',
      },
      lines: [
        `vault opens, one at a time on the devnet, ${pairs} pairs of ${seconds} s blocks:`,
        `  alone per minute ${rate(a)}; network ${rate(b)}; ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}` +
          (failures.length ? `; ${failures.length} failed: ${failures[0]}` : ''),
      ],
    };
  } finally {
    await Promise.all([alone.stop(), network.stop()]);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const given = process.env.GUARDIAN_NETWORK === 'external' ? process.env.GUARDIAN_DIR : undefined;
  const own = given ? null : await startGuardianNetwork({ policy: 'approve-all' });
  try {
    const { figure, lines } = await measureOpens(
      given ?? own!.dir,
      Number(process.env.BENCH_OPEN_PAIRS ?? 5),
      Number(process.env.BENCH_OPEN_SECONDS ?? 6),
    );
    for (const line of lines) console.log(line);
    console.log('');
    process.exitCode = printFigure(figure) ? 0 : 1;
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    await own?.close();
  }
}
