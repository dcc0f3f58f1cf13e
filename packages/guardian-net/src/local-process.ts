// Process plumbing of a local network (`guardian dkg`, `guardian local`): free loopback ports for a
// new set, a child that leaves with its parent, and stopping children with a grace period. A
// guardian run by another process (the app server, `guardian local`) must never outlive it, even
// when that parent is killed with SIGKILL and had no chance to stop it.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { HEALTH_MAX_BYTES, readPublic, type PublicTarget } from './public-read';

/** n distinct free loopback ports, each found by binding port 0 (what GUARDIAN_BASE_PORT=0 asks). */
export async function freeLoopbackPorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  // All held open at once, so the n ports differ; released together just before the guardians bind.
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/**
 * `--exit-with-parent`: the parent holds the write end of this process's stdin; when the parent is
 * gone (exited, or killed with SIGKILL), the kernel closes it and stdin ends. A check of the parent
 * pid every second covers a stdin that is not that pipe: once the parent dies this process is
 * re-parented, and its ppid changes. Returns a function that stops watching.
 */
export function onParentGone(leave: () => void): () => void {
  const parent = process.ppid;
  const detach = () => {
    clearInterval(timer);
    for (const event of ['end', 'close', 'error']) process.stdin.off(event, once);
    process.stdin.pause();
  };
  const once = () => {
    detach();
    leave();
  };
  for (const event of ['end', 'close', 'error']) process.stdin.on(event, once);
  process.stdin.resume();
  const timer = setInterval(() => process.ppid !== parent && once(), 1_000);
  timer.unref();
  return detach;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM to each child, SIGKILL to any still running after `graceMs`; resolves once all exited. */
export async function stopChildren(children: ChildProcess[], graceMs = 3_000): Promise<void> {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  const all = Promise.all(children.map(exited));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>(
    (resolve) => (timer = setTimeout(() => resolve('late'), graceMs)),
  );
  if ((await Promise.race([all, late])) === 'late')
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  clearTimeout(timer);
  await all;
}

/** A guardian that ran this long before it died was running: its next failure counts from one. */
export const HEALTHY_RUN_MS = 60_000;
/** Quick failures in a row after which `guardian local` stops restarting a guardian. */
export const MAX_QUICK_FAILURES = 3;

/**
 * When `guardian local` starts a dead guardian again: after a crash of one that had been running
 * (`healthyRunMs`), always; after `maxQuickFailures` failures in a row each within `healthyRunMs`
 * of its start (a lost directory, a bad flag), never: the same start would fail again, every
 * second, forever.
 */
export class RestartPolicy {
  private quickFailures = 0;

  constructor(
    private readonly o = { healthyRunMs: HEALTHY_RUN_MS, maxQuickFailures: MAX_QUICK_FAILURES },
  ) {}

  /** Records an exit of a run started at `startedAt`; true when it is to be started again. */
  exited(startedAt: number, now: number): boolean {
    this.quickFailures = now - startedAt >= this.o.healthyRunMs ? 0 : this.quickFailures + 1;
    return this.quickFailures < this.o.maxQuickFailures;
  }

  get failures(): number {
    return this.quickFailures;
  }
}

/**
 * Passes a child's stderr on to this process's, line by line, and keeps its last line: why it
 * stopped, in its own words (`guardian: <message>`, cli.ts).
 */
export function lastErrorLine(child: ChildProcess): () => string | null {
  let last: string | null = null;
  if (child.stderr)
    createInterface({ input: child.stderr }).on('line', (line) => {
      process.stderr.write(`${line}\n`);
      if (line.trim()) last = line.trim().slice(0, 1_000);
    });
  return () => last;
}

/**
 * Resolves once the guardian at `target.url` answers /v1/health (over https, as the identity key
 * it must be bound to); throws after `timeoutMs`.
 */
export async function waitHealthy(target: PublicTarget, timeoutMs = 60_000): Promise<void> {
  const { url } = target;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      // Ample for a TLS handshake on a loaded machine: a time-out mid-handshake would throw the
      // connection away and start the next try from scratch. A guardian not yet listening refuses
      // at once, so this costs nothing while it starts.
      const res = await readPublic(target, '/v1/health', { timeoutMs: 5_000, maxBytes: HEALTH_MAX_BYTES }); // prettier-ignore
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
