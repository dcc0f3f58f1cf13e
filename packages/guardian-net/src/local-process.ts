// Process plumbing of a local network (`guardian dkg`, `guardian local`): free loopback ports for a
// new set, a child that leaves with its parent, and stopping children with a grace period. A
// guardian run by another process (the app server, `guardian local`) must never outlive it, even
// when that parent is killed with SIGKILL and had no chance to stop it.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

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
