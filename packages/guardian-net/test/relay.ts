// A TCP relay in front of one guardian, for the tests and benchmarks that put distance and faults
// between guardians (this machine's kernel has no netem). Each chunk is held `delayMs` in each
// direction; with `loss`, a chunk is lost once and arrives a retransmission time-out later, with
// every chunk behind it on that connection waiting for it, as TCP delivers after a lost segment.
// `stall` swallows every byte from then on (a member that holds its connections and never
// answers) until `heal`; `cut` refuses and resets every connection (a partition) until `heal`;
// `hold` keeps every byte back, in order, until `release` delivers it (a member whose link is slow
// for a while, while the member itself keeps running: its own timers and reads go on).
import net from 'node:net';

export interface RelayEnds {
  /** where the relay listens (default 127.0.0.1, a free port) */
  host?: string;
  port?: number;
  /** where it forwards to (default 127.0.0.1; the port may be set later, before the first caller) */
  targetHost?: string;
  target?: number;
  /** seeds the loss draws, so a run loses the same chunks */
  seed?: number;
}

/** A small deterministic generator for the loss draws (mulberry32). */
function draws(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class Relay {
  delayMs = 0;
  /** the share of chunks lost once (0..1) */
  loss = 0;
  /** how much later a lost chunk arrives: Linux's least retransmission time-out */
  retransmitMs = 200;
  target: number;
  /** where it listens, once it does */
  port = 0;
  /** connections taken, chunks relayed and chunks lost, since the start */
  readonly counts = { connections: 0, chunks: 0, lost: 0 };
  private state: 'open' | 'stalled' | 'cut' | 'held' = 'open';
  /** what `hold` kept back, in the order it came */
  private held: (() => void)[] = [];
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((client) => this.pipe(client));
  private readonly random: () => number;
  private readonly ends: RelayEnds;

  constructor(ends: RelayEnds = {}) {
    this.ends = ends;
    this.target = ends.target ?? 0;
    this.random = draws(ends.seed ?? 1);
  }

  private closed: Promise<void> = Promise.resolve();

  /** Listens (again, on the same port, after `close`); resolves with its port. */
  async listen(): Promise<number> {
    await this.closed;
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port || (this.ends.port ?? 0), this.ends.host ?? '127.0.0.1', () => {
        this.port = (this.server.address() as net.AddressInfo).port;
        resolve(this.port);
      });
    });
  }

  private pipe(client: net.Socket): void {
    if (this.state === 'cut') return void client.resetAndDestroy();
    this.counts.connections++;
    const upstream = net.connect(this.target, this.ends.targetHost ?? '127.0.0.1');
    const ways = [
      { from: client, to: upstream, forward: this.forward(upstream) },
      { from: upstream, to: client, forward: this.forward(client) },
    ];
    for (const { from, to, forward } of ways) {
      this.sockets.add(from);
      from.setNoDelay(true);
      from.on('error', () => undefined);
      from.on('data', forward.chunk);
      // As TCP closes a connection after the data it carried: what one side sent before it closed
      // still arrives (a guardian's error answer, sent with `connection: close`), then the other
      // side is closed.
      from.on('close', () => {
        this.sockets.delete(from);
        const pending = Math.max(0, forward.until() - Date.now());
        setTimeout(() => to.end(() => to.destroy()), pending + 1);
      });
    }
  }

  /** One direction of one connection: in order, each chunk after the delay (and any loss). */
  private forward(to: net.Socket): { chunk: (chunk: Buffer) => void; until: () => number } {
    let lastAt = 0;
    const chunk = (chunk: Buffer) => {
      if (this.state === 'held') return void this.held.push(() => !to.destroyed && to.write(chunk));
      if (this.state !== 'open') return;
      this.counts.chunks++;
      const lost = this.loss > 0 && this.random() < this.loss;
      if (lost) this.counts.lost++;
      const extra = this.delayMs + (lost ? this.retransmitMs : 0);
      if (extra === 0 && lastAt <= Date.now()) return void to.write(chunk);
      lastAt = Math.max(Date.now() + extra, lastAt);
      setTimeout(
        () => this.state === 'open' && !to.destroyed && to.write(chunk),
        lastAt - Date.now(),
      );
    };
    return { chunk, until: () => lastAt };
  }

  /** Swallows every byte from now on: callers wait on open connections until their time-outs. */
  stall(): void {
    if (this.state === 'open') this.state = 'stalled';
  }

  /** Keeps every byte back from now on, both ways, until `release`. */
  hold(): void {
    if (this.state === 'open') this.state = 'held';
  }

  /** Delivers what `hold` kept back, in order, and relays as before. */
  release(): void {
    if (this.state !== 'held') return;
    this.state = 'open';
    for (const write of this.held.splice(0)) write();
  }

  /** Closes every connection open now; new ones are taken as before. */
  drop(): void {
    for (const s of this.sockets) s.destroy();
  }

  /** Resets every connection and refuses new ones, as a partition does. */
  cut(): void {
    this.state = 'cut';
    for (const s of this.sockets) s.resetAndDestroy();
  }

  /** Open again; the connections that lost bytes are closed (their callers have moved on). */
  heal(): void {
    if (this.state === 'open') return;
    this.state = 'open';
    for (const s of this.sockets) s.destroy();
  }

  /** Closes every connection and stops listening: a caller is refused, as by a stopped member. */
  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.closed = new Promise((resolve) => this.server.close(() => resolve()));
    return this.closed;
  }
}
