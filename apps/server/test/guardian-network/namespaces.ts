// Each guardian of the distance test on a network stack of its own: a namespace per member, made by
// the test (`ip netns add`), joined to the root namespace (where the app and the test's relays run)
// by a veth pair whose two addresses the test assigns (10.213.<run>.<4i+1> on the root side,
// <4i+2> in the member's namespace, a /30 each). Its loopback stays down and nothing routes
// between namespaces: a member reaches the app and the other members only at root-side addresses,
// where the relays listen. Where namespaces cannot be made (not root, no `ip`, a kernel without
// them) `makePlaces` says why and places every member on loopback instead. Names carry the test's
// prefix and its process id, so the leftovers of a run that died (its process gone) are removed
// first, and two runs at once never touch each other's.
import { execFileSync } from 'node:child_process';

const NS_PREFIX = 'unitdist-';
const VETH_PREFIX = 'ud';
const SUBNET = '10.213';

export interface Place {
  /** the member's namespace, or null on loopback */
  ns: string | null;
  /** the member's own address, where it listens */
  host: string;
  /** the root namespace's address on the member's link: its relays listen there */
  rootHost: string;
  /** runs a process there: `ip netns exec <ns>`, or nothing on loopback */
  wrap: string[];
  /** takes the member's link down (a partition) or up again; false on loopback */
  link(up: boolean): boolean;
}

export interface Places {
  places: Place[];
  /** why the members share loopback, when namespaces could not be made */
  fallback: string | null;
  close(): void;
}

const ip = (...args: string[]) =>
  execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 }).toString();

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The namespace `ns` deleted, once every process left in it (a member of that run) is killed. */
function removeNamespace(ns: string): void {
  const quietly = (f: () => void) => {
    try {
      f();
    } catch {
      // already gone
    }
  };
  quietly(() => {
    for (const pid of ip('netns', 'pids', ns).split('\n').filter(Boolean))
      quietly(() => process.kill(Number(pid), 'SIGKILL'));
  });
  quietly(() => ip('netns', 'del', ns));
}

/** Namespaces and root-side links of this test whose run's process is gone, removed. */
function removeLeftovers(): void {
  for (const line of ip('netns', 'list').split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const pid = new RegExp(`^${NS_PREFIX}(\\d+)-g\\d+$`).exec(name)?.[1];
    if (pid && !alive(Number(pid))) removeNamespace(name);
  }
  for (const line of ip('-o', 'link', 'show').split('\n')) {
    const name = /^\d+: ([^:@]+)/.exec(line)?.[1] ?? '';
    const pid = new RegExp(`^${VETH_PREFIX}(\\d+)h\\d+$`).exec(name)?.[1];
    if (pid && !alive(Number(pid))) ip('link', 'del', name);
  }
}

/** A third octet no address of this machine uses yet. */
function freeSubnet(): number {
  const used = ip('-4', '-o', 'addr', 'show');
  for (let tries = 0; tries < 64; tries++) {
    const octet = Math.floor(Math.random() * 256);
    if (!used.includes(` ${SUBNET}.${octet}.`)) return octet;
  }
  throw new Error(`no free ${SUBNET}.x.0/24 on this machine`);
}

/** Why namespaces cannot be made here, or null when they can be tried. */
function unavailable(): string | null {
  if (process.platform !== 'linux') return `this is ${process.platform}, not Linux`;
  if (process.getuid?.() !== 0) return 'the test does not run as root';
  try {
    ip('netns', 'list');
    return null;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: Buffer };
    return e.code === 'ENOENT' ? 'there is no `ip` command' : `ip netns: ${e.stderr ?? e.message}`;
  }
}

function loopback(count: number, why: string): Places {
  const place: Place = { ns: null, host: '127.0.0.1', rootHost: '127.0.0.1', wrap: [], link: () => false }; // prettier-ignore
  return { places: Array.from({ length: count }, () => place), fallback: why, close: () => {} };
}

/** `count` members, each in a namespace of its own when this machine allows it. */
export function makePlaces(count: number): Places {
  const why = unavailable();
  if (why) return loopback(count, why);
  removeLeftovers();
  const made: string[] = [];
  const close = () => {
    // Deleting a namespace deletes its end of the veth pair, and with it the root's end.
    for (const ns of made.splice(0)) removeNamespace(ns);
    process.off('exit', close);
  };
  process.on('exit', close);
  try {
    const octet = freeSubnet();
    const places = Array.from({ length: count }, (_, i): Place => {
      const ns = `${NS_PREFIX}${process.pid}-g${i + 1}`;
      const [root, inside] = [`${VETH_PREFIX}${process.pid}h${i + 1}`, `${VETH_PREFIX}${process.pid}n${i + 1}`]; // prettier-ignore
      const [rootHost, host] = [`${SUBNET}.${octet}.${4 * i + 1}`, `${SUBNET}.${octet}.${4 * i + 2}`]; // prettier-ignore
      ip('netns', 'add', ns);
      made.push(ns);
      ip('link', 'add', root, 'type', 'veth', 'peer', 'name', inside, 'netns', ns);
      ip('addr', 'add', `${rootHost}/30`, 'dev', root);
      ip('link', 'set', root, 'up');
      ip('-n', ns, 'addr', 'add', `${host}/30`, 'dev', inside);
      ip('-n', ns, 'link', 'set', inside, 'up');
      ip('-n', ns, 'route', 'add', 'default', 'via', rootHost);
      const link = (up: boolean) => (ip('link', 'set', root, up ? 'up' : 'down'), true);
      return { ns, host, rootHost, wrap: ['ip', 'netns', 'exec', ns], link };
    });
    return { places, fallback: null, close };
  } catch (error) {
    close();
    const e = error as Error & { stderr?: Buffer };
    return loopback(count, `a namespace could not be made: ${e.stderr?.toString().trim() || e.message}`); // prettier-ignore
  }
}
