// Robust signing (ROAST) for the root bench: time from `Coordinator.sign` to a verified signature at
// 3-of-5 and 7-of-10, with every guardian honest and with n - t of them adversarial (one stalls once
// its session has started, one sends bad shares, the rest answer 200 ms late each way), on
// loopback and with 50 ms one-way delay on every message. The guardians are real GuardianNodes
// (their own directories, stores and TLS servers, as every guardian's) in this process; each sits
// behind a relay (packages/guardian-net/test/relay.ts) that holds every chunk for the delay, in
// each direction. A stall is the relay going dark mid-signing (it drops every byte from then on)
// until the next round.
// `npm run bench:roast -w @unit/server` runs it alone; BENCH_ROAST_ROUNDS sets the rounds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Coordinator, GuardianNode, newIdentity, type SignEvent } from '@unit/guardian-net';
import { dealSetAt } from '../../../packages/guardian-net/test/dealt-at';
import { writeGuardianDir } from '../../../packages/guardian-net/test/guardian-dir';
import { Relay } from '../../../packages/guardian-net/test/relay';
import { runAlone } from './cosign';
import type { Figure } from './measure';

const P99_GOAL_MS = 1_000;
const HONEST_P50_GOAL_MS = 300;
const DELAY_MS = 50;
const SLOW_EXTRA_MS = 200;

interface Network {
  coordinator: Coordinator;
  groupKey: Uint8Array;
  relays: Relay[];
  /** guardian ids that send bad shares (the rest honest unless their relay is slowed or stalled) */
  badShares: Set<number>;
  close(): Promise<void>;
}

async function startNetwork(n: number, t: number): Promise<Network> {
  const dir = mkdtempSync(join(tmpdir(), 'unit-bench-roast-'));
  const relays = Array.from({ length: n }, () => new Relay());
  const ports = await Promise.all(relays.map((r) => r.listen()));
  const coordinatorId = newIdentity();
  const dealt = dealSetAt(
    ports.map((p) => `https://127.0.0.1:${p}`),
    t,
    coordinatorId,
  );
  const badShares = new Set<number>();
  const nodes: GuardianNode[] = [];
  for (let id = 1; id <= n; id++) {
    writeGuardianDir(join(dir, `g${id}`), id, [dealt]);
    const node = new GuardianNode({
      id,
      dir: join(dir, `g${id}`),
      port: 0,
      host: '127.0.0.1',
      validate: () => ({ approve: true }),
      log: () => undefined,
      // A liar: a real share with one bit flipped, so it fails FROST's check of that share.
      tamperShare: (share) => {
        if (!badShares.has(id)) return share;
        const bad = share.slice();
        bad[31] = bad[31]! ^ 0x01;
        return bad;
      },
    });
    relays[id - 1]!.target = await node.listen();
    nodes.push(node);
  }
  return {
    // As the app signs by default (GUARDIAN_ONE_ROUND): over preprocessed commitments, one round
    // trip a session; a quiet machine's two-round figures are in docs/guardian-network.md beside.
    coordinator: new Coordinator(dealt.set, coordinatorId, 5_000, { preprocess: { target: 8 } }),
    groupKey: hex.decode(dealt.set.groupKey!),
    relays,
    badShares,
    close: async () => {
      await Promise.all(relays.map((r) => r.close()));
      await Promise.all(nodes.map((node) => node.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)]!;

interface Run {
  p50: number;
  p99: number;
  sessions: number;
}

/**
 * `rounds` signings, one after another. Adversarial: guardian 1's link goes dark once a session
 * that holds it has started, guardian 2 sends bad shares, guardians 3..n-t are 200 ms slower each
 * way; the coordinator prefers them, so they are in its first session whenever they are ready.
 */
async function measure(
  net: Network,
  n: number,
  t: number,
  adversarial: boolean,
  delayMs: number,
  rounds: number,
): Promise<Run> {
  const adversaries = adversarial ? Array.from({ length: n - t }, (_, i) => i + 1) : [];
  net.badShares.clear();
  if (adversaries.includes(2)) net.badShares.add(2);
  net.relays.forEach((r, i) => {
    const slow = adversaries.includes(i + 1) && i + 1 >= 3;
    r.delayMs = delayMs + (slow ? SLOW_EXTRA_MS : 0);
  });
  const times: number[] = [];
  let worstSessions = 0;
  for (let i = 0; i < rounds + 3; i++) {
    for (const r of net.relays) r.heal();
    const message = randomBytes(32);
    const t0 = performance.now();
    const onEvent = (e: SignEvent) => {
      if (process.env.BENCH_ROAST_TRACE)
        console.log(
          (performance.now() - t0).toFixed(0),
          JSON.stringify({ ...e, sessionId: undefined }),
        );
      if (adversaries.includes(1) && e.kind === 'committed' && e.signers.includes(1))
        net.relays[0]!.stall();
    };
    const started = performance.now();
    const result = await net.coordinator.sign(message, {}, onEvent, { prefer: adversaries });
    const elapsed = performance.now() - started;
    if (!schnorr.verify(result.signature, message, net.groupKey))
      throw new Error('the network signed something that does not verify');
    if (result.attempts > n - t + 1) throw new Error(`${result.attempts} sessions: over n - t + 1`);
    if (i < 3) continue; // warm-up
    times.push(elapsed);
    worstSessions = Math.max(worstSessions, result.attempts);
  }
  for (const r of net.relays) r.heal();
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), sessions: worstSessions };
}

export async function roastFigures(rounds = Number(process.env.BENCH_ROAST_ROUNDS ?? 40)) {
  const lines = [`ROAST time to a signature, ${rounds} signings each (one at a time):`];
  const figures: Figure[] = [];
  for (const [t, n] of [
    [3, 5],
    [7, 10],
  ] as const) {
    const net = await startNetwork(n, t);
    try {
      for (const delay of [0, DELAY_MS]) {
        const honest = await measure(net, n, t, false, delay, rounds);
        const attacked = await measure(net, n, t, true, delay, rounds);
        const at = delay === 0 ? 'loopback' : `${delay} ms one-way`;
        lines.push(
          `  ${t}-of-${n}, ${at}: honest p50 ${honest.p50.toFixed(0)} ms p99 ${honest.p99.toFixed(0)} ms; ` +
            `${n - t} adversarial p50 ${attacked.p50.toFixed(0)} ms p99 ${attacked.p99.toFixed(0)} ms ` +
            `(at most ${attacked.sessions} sessions, bound ${n - t + 1})`,
        );
        if (delay !== DELAY_MS) continue;
        figures.push({
          name: `ROAST ${t}-of-${n}, 50 ms one-way, honest: time to signature p50`,
          value: honest.p50,
          goal: { max: HONEST_P50_GOAL_MS },
          noise: 0,
          unit: ' ms',
        });
        if (n === 10)
          figures.push({
            name: `ROAST 7-of-10, 50 ms one-way, 3 adversarial: time to signature p99`,
            value: attacked.p99,
            goal: { max: P99_GOAL_MS },
            noise: 0,
            unit: ' ms',
          });
      }
    } finally {
      await net.close();
    }
  }
  return { figures, lines };
}

await runAlone(import.meta.url, roastFigures);
