// The key a per-client limit counts by: the client's address, with IPv6 taken by its /64 (one
// host is commonly given a whole /64, so counting single IPv6 addresses would give it billions of
// shares). IPv4, and IPv4 mapped into IPv6, count by the whole address.
import net from 'node:net';

/** A request whose socket is already gone has no address: such callers share one key. */
export function clientKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  if (!net.isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  // A trailing dotted quad stands for two groups; it lies past the /64 either way.
  const missing = 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(Math.max(missing, 0)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
