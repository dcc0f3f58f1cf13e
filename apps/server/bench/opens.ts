// The second figure: vault opens per minute with the 2-of-3 guardian network against the
// single guardian (goal: at least as many). Two real apps run side by side on their own devnets (SQLite,
// temp folders): `alone` signs with its own guardian key (GUARDIAN_NETWORK=off), `network`
// coordinates the guardians of GUARDIAN_DIR (external: the processes run on their own). Each opens
// vault after vault as the web app does (fund the wallet, unit.reserve, build and sign, vault.open:
// test/cluster/instances.ts `openVault`), one at a time, the two apps in turn opening by opening
// for BENCH_OPEN_SECONDS, so the machine's other work weighs on both alike; the figure is the
// median of the pairs' ratios, its noise their interquartile spread.
// `npm run bench:opens -w @unit/server` runs it alone (on a network it starts, or on
// GUARDIAN_NETWORK=external GUARDIAN_DIR=<dir>); bench.ts runs it as one of the root bench's figures.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { loadGuardianNetwork } from '../src/network-client/network-signer';
import { openVault } from '../test/cluster/instances';
import {
  quorumAt,
  startGuardianNetwork,
  type TestGuardianNetwork,
} from '../test/guardian-network/signer-harness';
import { startTestApp, type RunningApp } from '../test/support';
import { printFigure } from './cosign';
import type { Figure } from './measure';

export const OPENS_GOAL = 1;
const DEPOSIT = 1_000_000n;
const BORROW = 10_000n;

/** One opening on `app`, timed (ms); null with the error's message when it failed. */
async function timedOpen(app: RunningApp): Promise<number | string> {
  const started = performance.now();
  try {
    await openVault(app, DEPOSIT, BORROW);
    return performance.now() - started;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Openings one at a time on each app in turn (alone, network, alone, ...) for `seconds` in all,
 * with the guardian network in `dir` (running). An app opening one vault at a time opens
 * 60,000 / (its ms per opening) a minute, so each pair's ratio is alone's time over the network's;
 * the figure is the median of the pairs' ratios, its noise their interquartile spread.
 */
export async function measureOpens(
  dir: string,
  seconds: number,
  /** Once the network app listens: its guardians must read its price (a quote is their quorum). */
  networkReady: (app: RunningApp) => Promise<void> = () => Promise.resolve(),
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
    await networkReady(network);
    // One warm-up opening each: the first pays for lazy compilation and the treasury's first reads.
    await openVault(alone, DEPOSIT, BORROW);
    await openVault(network, DEPOSIT, BORROW);
    const a: number[] = [];
    const b: number[] = [];
    const failures: string[] = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until && failures.length <= 5) {
      const x = await timedOpen(alone);
      const y = await timedOpen(network);
      if (typeof x === 'string' || typeof y === 'string') {
        failures.push(...[x, y].filter((r): r is string => typeof r === 'string'));
        continue;
      }
      a.push(x);
      b.push(y);
    }
    const ratios = a.map((x, i) => x / b[i]!).sort((x, y) => x - y);
    const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(ratios.length * q))]!;
    const ratio = at(0.5);
    const perMinute = (xs: number[]) =>
      (60_000 / (xs.reduce((s, x) => s + x, 0) / xs.length)).toFixed(0);
    return {
      figure: {
        name: 'vault opens per minute, 2-of-3 network vs alone (median of pairs)',
        // An opening that failed makes the figure meaningless: it counts as a miss.
        value: failures.length === 0 && ratios.length > 0 ? ratio : 0,
        goal: { min: OPENS_GOAL },
        noise: ratios.length > 0 ? (at(0.75) - at(0.25)) / ratio : 0,
        unit: '',
      },
      lines: [
        `vault opens, one at a time on the devnet, in turn for ${seconds} s: ${a.length} pairs`,
        `  alone ${perMinute(a)} per minute, network ${perMinute(b)}; pair ratios quartiles ` +
          `${at(0.25).toFixed(2)} / ${ratio.toFixed(2)} / ${at(0.75).toFixed(2)}` +
          (failures.length ? `; ${failures.length} failed: ${failures[0]}` : ''),
      ],
    };
  } finally {
    await Promise.all([alone.stop(), network.stop()]);
  }
}

/** (Re)starts every guardian of `network` on `app`'s devnet price, until the app has its quorum. */
export async function guardiansReading(network: TestGuardianNetwork, app: RunningApp) {
  for (let id = 1; id <= network.n; id++) await network.kill(id);
  await network.startAll(['--feeds', `devnet@${app.url}`, '--price-tick', '500']);
  await quorumAt(app);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const given = process.env.GUARDIAN_NETWORK === 'external' ? process.env.GUARDIAN_DIR : undefined;
  const own = given ? null : await startGuardianNetwork({ policy: 'approve-all', start: false });
  try {
    const { figure, lines } = await measureOpens(
      given ?? own!.dir,
      Number(process.env.BENCH_OPEN_SECONDS ?? 30),
      own ? (app) => guardiansReading(own, app) : undefined,
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
