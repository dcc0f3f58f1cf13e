// A guardian node's start options (node.ts): its id, directory, policy, own price feeds and the
// test fixtures' hooks.
import type { TamperDkgShare } from './dkg-rounds';
import type { CommitmentsJson } from './frost';
import type { GuardianSetBody } from './guardian-set';
import type { RateLimit } from './bounded';
import type { PriceFeed } from './price/feeds';
import type { NodeValidator } from './signing-rounds';

export interface NodePriceOptions {
  /** this guardian's own exchange feeds (kind@baseUrl, as PRICE_FEEDS) */
  feeds: PriceFeed[];
  tickMs?: number;
  timeoutMs?: number;
  maxSpreadBasisPoints?: number;
}

export interface NodeOptions {
  /** its id in the set; read from its set or roster when absent (0 while it waits for a roster) */
  id?: number;
  /** holds identity.json, store.sqlite and each set with its share (set-files.ts) */
  dir: string;
  /** a file holding its PostgreSQL store's URL; default `<dir>/database-url` if present (store-pg.ts) */
  databaseUrlFile?: string;
  /**
   * A published set names this guardian (`guardian local` after its DKG): its directory must hold
   * its identity, oracle secret and share; none is made anew (installed-dir.ts).
   */
  namedInSet?: boolean;
  /** the unsigned roster a DKG starts from; ignored once the node has a set and a share */
  roster?: GuardianSetBody;
  /** the coordinator's identity key (x-only hex) whose first roster it joins; any, when absent */
  firstCoordinator?: string;
  host?: string;
  /**
   * Local development only: listen on plain HTTP when its own URL is `http://` (every other link is
   * TLS 1.3 with certificates bound to the set's identity keys, tls-link.ts). Without it such a
   * guardian refuses to start.
   */
  insecurePlainHttp?: boolean;
  /** defaults to the port of this guardian's URL in the set (or roster) */
  port?: number;
  validate: NodeValidator;
  /** every public GET's limit per remote address (default PUBLIC_RATE_LIMIT) */
  publicRateLimit?: RateLimit;
  /** its own price feeds; without them it serves no price and refuses every liquidation */
  price?: NodePriceOptions;
  /** Test fixtures only (a malicious guardian): rewrites the share before it is sent. */
  tamperShare?: (share: Uint8Array) => Uint8Array;
  /** Test fixtures only (a malicious guardian): rewrites the commitments before they are sent. */
  tamperCommitments?: (c: CommitmentsJson) => CommitmentsJson;
  /** Test fixtures only (a malicious guardian): rewrites a DKG share before it is encrypted. */
  tamperDkgShare?: TamperDkgShare;
  /** Test fixtures only (a malicious repair helper): rewrites its repair sum before it is sealed. */
  tamperRepairSum?: (sum: Uint8Array) => Uint8Array;
  /** Test fixtures only (a malicious dealer): rewrites a resharing sub-share before it is sealed. */
  tamperReshareDeal?: (subShare: Uint8Array, to: number) => Uint8Array;
  log?: (event: Record<string, unknown>) => void;
}
