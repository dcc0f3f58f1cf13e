export * from './guardian-set';
export * from './frost';
export * from './envelope';
export * from './identity';
export {
  attemptsPerSigning,
  CommitmentPool,
  Coordinator,
  QuorumError,
  type CoordinatorOptions,
  type PoolOptions,
  runDkg,
  type Exclusion,
  type ExclusionCause,
  type SignEvent,
  type SignResult,
} from './coordinator';
export { MAX_ATTEMPT } from './signing-rounds';
export { GuardianNode, type NodePriceOptions } from './node';
export type {
  Decision,
  NodeValidator,
  SignRequest,
  Validator,
  ValidatorEnv,
} from './signing-rounds';
export * from './price/index';
export { liquidationDecision, type LiquidationContext } from './price/liquidation';
export { OwnPriceOracle, type OwnPrice } from './price/own-price';
export { collectHandover, nextRoster, runRotation, type RotationPlan } from './rotate';
export { readCapped } from './read-capped';
export {
  HEALTH_MAX_BYTES,
  readPublic,
  type PublicAnswer,
  type PublicReadOptions,
  type PublicTarget,
} from './public-read';
export { quoteQuorumProblem, type QuorumSet } from './vault-policy/quote-quorum';
export { SETTLE_KIND, settleContextSchema, type SettleContext } from './vault-policy/settle';
export {
  KEPT_PRICES_DIR,
  KEPT_PRICES_PATH,
  keepQuorum,
  readKeptQuorum,
  type KeptQuorum,
} from './price/kept-prices';
export * from './oracle/threshold-oracle';
export * from './oracle/collect';
export { ORACLE_HASH_PATH, ORACLE_SECRET_PATH, revealRefusal } from './oracle/routes';
export {
  readStopped,
  recordStopped,
  LOCAL_STOPPED_FILE,
  type StoppedGuardian,
} from './local-stopped';
export {
  atLeast,
  DEFAULT_GRACE_MS,
  fanOut,
  fanOutReason,
  FanOutShortError,
  type FanOutAnswer,
} from './fan-out';
export { AddressRateLimiter, LruMap, PUBLIC_RATE_LIMIT, type RateLimit } from './bounded';
