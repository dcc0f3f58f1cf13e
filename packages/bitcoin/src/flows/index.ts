// Flows: coin selection, max-deposit refinement, the PSBT of each vault action, signing, and the
// guardian's parse of a signed PSBT.
export {
  selectCoins,
  type CoinSelection,
  type CoinSelectionError,
  type CoinSelectionResult,
  type PaymentUtxo,
  type SelectCoinsParams,
} from './coin-select';
export {
  MAX_DEPOSIT_ERROR,
  maxOpenDeposit,
  maxVaultDeposit,
  refineMaxDeposit,
  type RefineMaxDepositParams,
} from './max-deposit';
export {
  buildBorrowPsbt,
  buildDepositPsbt,
  buildOpenPsbt,
  buildRepayPsbt,
  buildRepossessPsbt,
  buildWithdrawPsbt,
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
} from './builders';
export {
  buildSpeedUpPsbt,
  checkFeeOnlyReplacement,
  type ReplacementCheck,
  type SpeedUpParams,
} from './speed-up';
export { outputLayoutLength } from './parse';
export { quotedVault, type QuoteCommitment } from './quoted-vault';
export { VaultTxError, type InputSigner, type SignInputs, type VaultTxErrorCode } from './vault-tx';
export {
  parseVaultTransaction,
  type KnownUtxo,
  type ParseContext,
  type ParseResult,
  type ParsedVaultTransaction,
} from './parse';
export {
  addLiquidationWitness,
  cosignVaultInput,
  finalize,
  signTreasuryInput,
  signUserInputs,
} from './sign';
export {
  feeFor,
  inputWeight,
  outputWeight,
  paymentScriptKind,
  transactionWeight,
  weightToVsize,
  type InputKind,
  type PaymentScriptKind,
} from './vsize';
