// Flows: coin selection, max-deposit refinement, the PSBT assembly line, signing, speed-up, and the
// guardian's parse of a signed PSBT (each action's own part is declared in ../actions).
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
  buildSpeedUpPsbt,
  checkFeeOnlyReplacement,
  type ReplacementCheck,
  type SpeedUpParams,
} from './speed-up';
export { quotedHashes, quotedVault, type QuoteCommitment } from './quoted-vault';
export {
  vaultLeaf,
  VaultTxError,
  type InputSigner,
  type SignInputs,
  type VaultLeafChoice,
  type VaultTxErrorCode,
} from './vault-tx';
export { parseVaultTransaction, type ParseResult } from './parse';
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
