// Where a `--policy vault` guardian's facts come from: the network, the UNIT rune id, the oracle's
// key and the chain it reads (its own esplora). Off the devnet each is its operator's, pinned by
// flag, never the app's word: the app is the party the guardian checks, so a start without any of
// them stops with one sentence naming every missing one. Only a devnet guardian (the app IS that
// network: its chain, its market) may read the rune id and the oracle key from the app, and its
// chain from the app's esplora; it says so in its log.
import { readAppFacts, type AppFacts } from './chain-view';

export const DEVNET = 'devnet';
/** The networks a guardian may be pinned to (the app's NETWORK values). */
export const GUARDIAN_NETWORKS = ['devnet', 'signet', 'mutinynet', 'mainnet'] as const;

export interface FactFlags {
  network?: string | undefined;
  'rune-id'?: string | undefined;
  'oracle-key'?: string | undefined;
  chain?: string | undefined;
  app?: string | undefined;
}

export interface VaultFacts {
  facts: AppFacts;
  /** the esplora it reads the chain from */
  chain: string;
  /** the facts read from the app (devnet only), for the start's log line */
  fromApp: string[];
}

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * Why these flags do not pin a guardian's facts: each missing or malformed flag, or nothing. Off
 * the devnet (an unpinned network is not the devnet) every fact is needed, and the chain must not
 * be the app's own origin; on the devnet only the app's origin is.
 */
export function pinProblems(flags: FactFlags, feedKinds: readonly string[] = []): string[] {
  const problems: string[] = [];
  const { network } = flags;
  if (!flags.app) problems.push('--app <the app origin it serves>');
  if (network !== undefined && !(GUARDIAN_NETWORKS as readonly string[]).includes(network))
    problems.push(`--network one of ${GUARDIAN_NETWORKS.join(', ')} (not "${network}")`);
  if (network === DEVNET) return problems;
  if (network === undefined) problems.push(`--network <${GUARDIAN_NETWORKS.slice(1).join('|')}>`);
  if (!flags['rune-id']) problems.push('--rune-id <block:tx of UNIT>');
  if (!flags['oracle-key']) problems.push("--oracle-key <the oracle's x-only key, 64 hex>");
  else if (!/^[0-9a-f]{64}$/.test(flags['oracle-key']))
    problems.push('--oracle-key as 64 lowercase hex characters');
  if (!flags.chain) problems.push('--chain <its own esplora URL>');
  else if (!originOf(flags.chain)) problems.push('--chain as an http(s) URL');
  else if (flags.app && originOf(flags.chain) === originOf(flags.app))
    problems.push(`--chain at an esplora of its own, not the app's origin ${originOf(flags.app)}`);
  if (feedKinds.includes(DEVNET))
    problems.push("--feeds of exchanges (a devnet@ feed is the app's market)");
  return problems;
}

/**
 * The facts a `--policy vault` guardian checks against: its pins, and on the devnet what it did not
 * pin read from the app (once, at start). Throws one sentence naming every missing pin.
 */
export async function vaultFacts(
  flags: FactFlags,
  feedKinds: readonly string[] = [],
): Promise<VaultFacts> {
  const problems = pinProblems(flags, feedKinds);
  if (problems.length > 0) {
    const where =
      flags.network === DEVNET
        ? ''
        : ` Off the devnet (${flags.network ?? 'no --network given'}) a guardian checks requests against facts of its own, never the app's word.`;
    throw new Error(
      `A --policy vault guardian needs ${problems.join(', ')}.${where} Start it again with those flags.`,
    );
  }
  const app = flags.app!;
  const pinned: Partial<AppFacts> = {
    network: flags.network!,
    ...(flags['rune-id'] ? { unitRuneId: flags['rune-id'] } : {}),
    ...(flags['oracle-key'] ? { oraclePubkey: flags['oracle-key'] } : {}),
  };
  const facts = await readAppFacts(app, pinned);
  const fromApp = [
    ...(flags['rune-id'] ? [] : ['rune id']),
    ...(flags['oracle-key'] ? [] : ['oracle key']),
    ...(flags.chain ? [] : ['chain']),
  ];
  return { facts, chain: flags.chain ?? `${app.replace(/\/+$/, '')}/esplora`, fromApp };
}
