// Row shapes of the devnet tables (see migrations.ts). Integer columns come back as numbers from
// better-sqlite3 and as strings from pg, so readers convert with Number()/BigInt().

type DbInt = number | string | bigint;

export interface DevnetMetaTable {
  key: string;
  value: string;
}

export interface DevnetBlocksTable {
  height: DbInt;
  hash: string;
  prev_hash: string;
  time: DbInt;
  tx_count: number;
}

export interface DevnetTxsTable {
  txid: string;
  hex: string;
  seq: DbInt;
  block_height: DbInt | null;
  block_index: number | null;
  fee: DbInt;
  vsize: DbInt;
  weight: DbInt;
  first_seen: DbInt;
}

export interface DevnetOutputsTable {
  txid: string;
  vout: number;
  value: DbInt;
  script_hex: string;
  address: string | null;
  unit_amount: DbInt;
  spent_txid: string | null;
  spent_vin: number | null;
}

export interface DevnetReplacedTable {
  txid: string;
  replaced_by: string;
  time: DbInt;
}

export interface DevnetDatabase {
  devnet_meta: DevnetMetaTable;
  devnet_blocks: DevnetBlocksTable;
  devnet_txs: DevnetTxsTable;
  devnet_outputs: DevnetOutputsTable;
  devnet_replaced: DevnetReplacedTable;
}
