// The PSBT builders of the vault actions, one per action of docs/protocol.md ("Transactions"). Each
// is declared with its inputs, outputs and checks in packages/bitcoin/src/actions/; this module
// keeps the names the callers and the byte-for-byte vectors of builders.test.ts use.
export {
  buildBorrowPsbt,
  buildDepositPsbt,
  buildOpenPsbt,
  buildRepayPsbt,
  buildRepossessPsbt,
  buildWithdrawPsbt,
  depositPlan,
  openPlan,
  repossessionTax,
  unitRunestoneScript,
  withdrawFee,
  type BorrowParams,
  type BuiltVaultTx,
  type DepositParams,
  type OpenParams,
  type RepayParams,
  type RepossessParams,
  type TreasuryUtxo,
  type UnitUtxo,
  type VaultStateFields,
  type VaultUtxo,
  type VaultWallet,
  type WithdrawParams,
} from '../actions';
