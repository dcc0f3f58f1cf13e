// Test vectors of what the protocol writes and hashes (docs/vectors/state-records.json and
// docs/vectors/ledger-digest.json): the state record of every version, field by field and as
// bytes; the price quorum commitment a network-mode record carries; the ledger digest.
import { hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  encodeStateRecord,
  ledgerDigest,
  ledgerEntry,
  ledgerOrder,
  priceQuorumCommitment,
  stateRecordScript,
  type LedgerVault,
  type QuorumPrice,
  type StateRecord,
} from '../../src/index';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** A state record's fields in JSON: u64 fields as decimal strings, bytes as hex. */
export interface RecordFields {
  action: StateRecord['action'];
  unitDebt: string;
  vaultSats: string;
  quotePriceCents: string;
  thresholdCents: string;
  quoteStamp: number;
  nonce: string;
  expiry: number;
  vaultPubkey?: string;
  quorumCommitment?: string;
  term?: { settleHeight: number; exitHeight: number; exitBranch: string };
}

export const recordOfFields = (f: RecordFields): StateRecord => ({
  action: f.action,
  unitDebt: BigInt(f.unitDebt),
  vaultSats: BigInt(f.vaultSats),
  quotePriceCents: BigInt(f.quotePriceCents),
  thresholdCents: BigInt(f.thresholdCents),
  quoteStamp: f.quoteStamp,
  nonce: hex.decode(f.nonce),
  expiry: f.expiry,
  ...(f.vaultPubkey ? { vaultPubkey: hex.decode(f.vaultPubkey) } : {}),
  ...(f.quorumCommitment ? { quorumCommitment: hex.decode(f.quorumCommitment) } : {}),
  ...(f.term ? { term: { ...f.term, exitBranch: hex.decode(f.term.exitBranch) } } : {}),
});

export const fieldsOfRecord = (r: StateRecord): RecordFields => ({
  action: r.action,
  unitDebt: r.unitDebt.toString(),
  vaultSats: r.vaultSats.toString(),
  quotePriceCents: r.quotePriceCents.toString(),
  thresholdCents: r.thresholdCents.toString(),
  quoteStamp: r.quoteStamp,
  nonce: hex.encode(r.nonce),
  expiry: r.expiry,
  ...(r.vaultPubkey ? { vaultPubkey: hex.encode(r.vaultPubkey) } : {}),
  ...(r.quorumCommitment ? { quorumCommitment: hex.encode(r.quorumCommitment) } : {}),
  ...(r.term ? { term: { ...r.term, exitBranch: hex.encode(r.term.exitBranch) } } : {}),
});

const bytes32 = (label: string) => hex.encode(sha256(utf8(`unit-vector/${label}`)));

/** A quote's signed prices (signatures stand in as fixed hex: the commitment hashes them as text). */
export const QUORUM: QuorumPrice[] = [3, 1, 2].map((guardian) => ({
  guardian,
  setVersion: 1,
  priceCents: 9_712_345 + guardian,
  time: 1_750_000_000 + guardian,
  sig: bytes32(`price-sig-${guardian}`) + bytes32(`price-sig-${guardian}/2`),
}));

/** The canonical JSON the commitment hashes: in guardian id order, keys sorted, no spaces. */
export const canonicalQuorum = (prices: readonly QuorumPrice[]): string =>
  `[${[...prices]
    .sort((a, b) => a.guardian - b.guardian)
    .map(
      (p) =>
        `{"guardian":${p.guardian},"priceCents":${p.priceCents},"setVersion":${p.setVersion},"sig":"${p.sig}","time":${p.time}}`,
    )
    .join(',')}]`;

const commitment = hex.encode(priceQuorumCommitment(QUORUM));
const base = {
  unitDebt: '625000',
  vaultSats: '100000000',
  quotePriceCents: '1000000',
  thresholdCents: '843750',
  quoteStamp: 1_750_000_000,
  nonce: bytes32('nonce').slice(0, 32),
  expiry: 1_750_000_065,
};
const vaultPubkey = bytes32('vault-key');
const term = { settleHeight: 932_561, exitHeight: 936_881, exitBranch: bytes32('exit-branch') };

const RECORDS: { name: string; fields: RecordFields }[] = [
  { name: 'version 1: a borrow', fields: { ...base, action: 'b' } },
  { name: 'version 1: an opening without its key', fields: { ...base, action: 'o' } },
  {
    name: 'version 1: a repossess, u64 maxima',
    fields: {
      ...base,
      action: 'x',
      unitDebt: '18446744073709551615',
      vaultSats: '0',
      quoteStamp: 4_294_967_295,
    },
  },
  { name: 'version 2: an opening with its key', fields: { ...base, action: 'o', vaultPubkey } },
  {
    name: 'version 3: a withdraw committing to the price quorum',
    fields: { ...base, action: 'w', quorumCommitment: commitment },
  },
  {
    name: 'version 4: a committed opening with its key',
    fields: { ...base, action: 'o', vaultPubkey, quorumCommitment: commitment },
  },
  { name: 'version 5: a deposit to a vault with a term', fields: { ...base, action: 'd', term } },
  {
    name: 'version 6: an opening with its key and a term',
    fields: { ...base, action: 'o', vaultPubkey, term },
  },
  {
    name: 'version 7: a repay, committed, with a term',
    fields: { ...base, action: 'r', quorumCommitment: commitment, term },
  },
  {
    name: 'version 8: an opening with key, commitment and term',
    fields: { ...base, action: 'o', vaultPubkey, quorumCommitment: commitment, term },
  },
];

/** Byte strings that are no record: each must decode to nothing. */
function invalidRecords(): { name: string; hex: string }[] {
  const v1 = encodeStateRecord(recordOfFields({ ...base, action: 'b' }));
  const v2 = encodeStateRecord(recordOfFields({ ...base, action: 'o', vaultPubkey }));
  const v3 = encodeStateRecord(
    recordOfFields({ ...base, action: 'w', quorumCommitment: commitment }),
  );
  const v5 = encodeStateRecord(recordOfFields({ ...base, action: 'd', term }));
  const edit = (bytes: Uint8Array, at: number, value: number) => {
    const copy = bytes.slice();
    copy[at] = value;
    return hex.encode(copy);
  };
  const termAt = v5.length - 40;
  return [
    { name: 'bad magic', hex: edit(v1, 0, 0x56) },
    { name: 'unknown version 9', hex: edit(v1, 5, 9) },
    { name: 'action l (history only)', hex: edit(v1, 6, 0x6c) },
    { name: 'version 1 one byte short', hex: hex.encode(v1.subarray(0, 62)) },
    { name: 'version 2 on a borrow (only an opening carries its key)', hex: edit(v2, 6, 0x62) },
    {
      name: 'version 3 on an opening (a committed opening carries its key)',
      hex: edit(v3, 6, 0x6f),
    },
    {
      name: 'term with settlement height 0',
      hex: hex.encode(
        Uint8Array.of(...v5.subarray(0, termAt), 0, 0, 0, 0, ...v5.subarray(termAt + 4)),
      ),
    },
    {
      name: 'term with the exit before the settlement',
      hex: hex.encode(
        Uint8Array.of(...v5.subarray(0, termAt + 4), 0, 0, 0, 1, ...v5.subarray(termAt + 8)),
      ),
    },
  ];
}

export function stateRecordVectors() {
  return {
    about:
      'The state record of docs/protocol.md as packages/bitcoin writes it (encodeStateRecord, stateRecordScript): fields -> record bytes -> OP_RETURN output script, and back (decodeStateRecord, parseStateRecordScript). Versions 1 to 4 without a term, 5 to 8 with one; `invalid` lists bytes that decode to no record. `quorum` is the price quorum commitment versions 3, 4, 7 and 8 carry.',
    quorum: {
      prices: QUORUM,
      canonicalJson: canonicalQuorum(QUORUM),
      tag: 'unit/price-quorum',
      commitment,
    },
    records: RECORDS.map(({ name, fields }) => {
      const record = recordOfFields(fields);
      const bytes = encodeStateRecord(record);
      return {
        name,
        fields,
        version: bytes[5]!,
        length: bytes.length,
        hex: hex.encode(bytes),
        script: hex.encode(stateRecordScript(record)),
      };
    }),
    invalid: invalidRecords(),
  };
}

export interface LedgerVaultJson {
  vaultId: string;
  collateralSats: string;
  debt: string;
  status: LedgerVault['status'];
}

export const ledgerVaultOf = (v: LedgerVaultJson): LedgerVault => ({
  vaultId: v.vaultId,
  collateralSats: BigInt(v.collateralSats),
  debt: BigInt(v.debt),
  status: v.status,
});

const LEDGER: LedgerVaultJson[] = [
  { vaultId: bytes32('vault-c'), collateralSats: '100000000', debt: '625000', status: 'open' },
  { vaultId: bytes32('vault-a'), collateralSats: '0', debt: '0', status: 'repossessed' },
  { vaultId: bytes32('vault-b'), collateralSats: '2500000', debt: '0', status: 'open' },
  { vaultId: bytes32('vault-d'), collateralSats: '54321', debt: '12345', status: 'unrecorded' },
  { vaultId: bytes32('vault-e'), collateralSats: '0', debt: '0', status: 'settled' },
  { vaultId: bytes32('vault-f'), collateralSats: '0', debt: '0', status: 'exited' },
];

function ledgerVector(name: string, vaults: LedgerVaultJson[]) {
  const ordered = ledgerOrder(vaults.map(ledgerVaultOf));
  return {
    name,
    vaults,
    entries: ordered.map((v) => hex.encode(ledgerEntry(v))),
    digest: ledgerDigest(vaults.map(ledgerVaultOf)),
  };
}

export function ledgerDigestVectors() {
  return {
    about:
      'The ledger digest of docs/protocol.md as packages/bitcoin computes it (ledgerEntry, ledgerDigest): taggedHash("unit/ledger", u32be(count) || entries in vault id order), each entry vault id (32) || u64be collateral sats || u64be debt || status byte (open 0, repossessed 1, unrecorded 2, settled 3, exited 4). `vaults` is given unordered on purpose; `entries` are in digest order.',
    tag: 'unit/ledger',
    ledgers: [
      ledgerVector('empty ledger', []),
      ledgerVector('one open vault', LEDGER.slice(0, 1)),
      ledgerVector('six vaults, every status at least once, given out of order', LEDGER),
    ],
  };
}
