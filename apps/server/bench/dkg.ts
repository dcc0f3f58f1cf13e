// The DKG's own time, for the root bench (with membership.ts's figures): guardians each made by
// `guardian init` in its own directory and started waiting for a roster, each behind a relay
// (packages/guardian-net/test/relay.ts) holding every message 50 ms each way, over TLS; the time
// from the coordinator's `guardian dkg --members` to a signature under the new group key (every
// member installed the set when the command ends). The operators approve the roster (`approve
// --kind dkg`) before the clock starts. 2-of-3 and 3-of-5. `npm run bench:dkg -w @unit/server` runs
// it alone. Each process (the command too) runs from its bundle (test/bins.ts), not through tsx.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Coordinator, loadIdentity, verifySet } from '@unit/guardian-net';
import { CLI, freePorts, kill9, run, type Proc } from '../../../packages/guardian-net/test/harness';
import { Relay } from '../../../packages/guardian-net/test/relay';
import { buildTestBins } from '../../../packages/guardian-net/test/bins';
import { linkCredentials } from '../../../packages/guardian-net/src/tls-link';
import { runAlone } from './cosign';
import { cli, DELAY_MS, guardianEnv, until } from './membership';
import type { Figure } from './measure';

// An operator's command, run once per network: the goal is that it ends while one waits for it.
const DKG_GOAL_MS = 15_000;

/** ms from `guardian dkg` to a verified signature by the t-of-n set it made. */
async function timeDkg(n: number, t: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'unit-bench-dkg-'));
  const [urlBase, listenBase] = [await freePorts(n), await freePorts(n)];
  const relays: Relay[] = [];
  const procs: Proc[] = [];
  try {
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      const g = join(dir, `guardian-${i + 1}`);
      const url = `https://127.0.0.1:${urlBase + i}`;
      const out = await cli(['init', '--dir', g, '--url', url, '--name', `guardian-${i + 1}`]);
      parts.push(out.trim().split('\n').at(-1)!);
      const relay = new Relay({ port: urlBase + i, target: listenBase + i });
      relay.delayMs = DELAY_MS;
      await relay.listen();
      relays.push(relay);
      const flags = ['--port', `${listenBase + i}`, '--policy', 'approve-all'];
      procs.push(run(CLI, ['start', '--dir', g, ...flags], { env: guardianEnv }));
    }
    const identity = (p: string) => (JSON.parse(p) as { identityKey: string }).identityKey;
    await Promise.all(parts.map((p, i) => until({ url: `https://127.0.0.1:${urlBase + i}`, identityKey: identity(p) }, 'waiting'))); // prettier-ignore
    const members = join(dir, 'members.txt');
    writeFileSync(members, parts.join('\n') + '\n');
    const net = join(dir, 'network');
    const dkg = ['dkg', '--dir', net, '--members', members, '--t', `${t}`];
    await cli(dkg, 1);
    for (let i = 1; i <= n; i++)
      await cli(['approve', '--kind', 'dkg', '--dir', join(dir, `guardian-${i}`), '--roster', join(net, 'roster.json'), '--yes']); // prettier-ignore
    // The signature stands for the app's coordinator, which made its TLS certificate at its own
    // start: this process makes it before the clock, as the app would have (the command itself
    // still makes its own inside it).
    const coordinator = loadIdentity(join(net, 'coordinator', 'identity.json'));
    await linkCredentials(coordinator);
    const started = performance.now();
    await cli(dkg);
    const set = verifySet(JSON.parse(readFileSync(join(net, 'guardian-set.json'), 'utf8')));
    const message = randomBytes(32);
    const signed = await new Coordinator(set, coordinator, 10_000).sign(message, { kind: 'manual' }); // prettier-ignore
    const ms = performance.now() - started;
    if (!schnorr.verify(signed.signature, message, hex.decode(set.groupKey!)))
      throw new Error(`the ${t}-of-${n} DKG's set signed something that does not verify`);
    return ms;
  } finally {
    await Promise.all(procs.map((p) => (p.child.exitCode === null ? kill9(p) : null)));
    await Promise.all(relays.map((r) => r.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function dkgFigures(): Promise<{ figures: Figure[]; lines: string[] }> {
  // Every process starts from its bundle, as the suites start them, whether or not a suite ran
  // since the last change: through tsx instead, the same runs take about 1.8 times as long here.
  await buildTestBins();
  const runs: [number, number][] = [
    [2, 3],
    [3, 5],
  ];
  const figures: Figure[] = [];
  for (const [t, n] of runs)
    figures.push({
      name: `DKG, ${t}-of-${n}, ${DELAY_MS} ms one-way: command to a working key`,
      value: await timeDkg(n, t),
      goal: { max: DKG_GOAL_MS },
      noise: 0,
      unit: ' ms',
    });
  const each = figures.map((f, i) => `${runs[i]![0]}-of-${runs[i]![1]} ${f.value.toFixed(0)} ms`);
  return {
    figures,
    lines: [
      `The DKG among guardians made by \`guardian init\` (${DELAY_MS} ms one-way, TLS): ${each.join(', ')} ` +
        '(each from the command to a verified signature under the new key)',
    ],
  };
}

await runAlone(import.meta.url, dkgFigures);
