// The wire contract between apps/server and apps/web, as types: each is inferred from its zod schema
// in ./wire (guardian.ts: the guardian's JSON-RPC methods; http.ts and accounts.ts: the /api bodies;
// chain.ts: the chain services'; fields.ts: shared fields and the error codes). Type-only, so the web
// app's first chunk carries no zod; the schemas themselves are `@unit/protocol/wire`.
export type {
  ActionCode,
  ApiErrorDto,
  ErrorCode,
  Network,
  TimePeriod,
  VaultAction,
} from './wire/fields';
export type {
  BitcoinPriceDto,
  ClosedVaultDto,
  ConfigDto,
  HistoryPointDto,
  LiquidatedVaultDto,
  OperationQuoteDto,
  OracleQuoteDto,
  PriceHistoryDto,
  PricePointDto,
  PriceStaleReason,
  TelegramNotifyAcceptedDto,
  TelegramNotifyDto,
  VaultDto,
  VaultHistoryPageDto,
  VaultHistoryRecordDto,
  VaultLiquidationDto,
} from './wire/http';
export type {
  AuthChallengeDto,
  AuthSessionDto,
  AuthVerifyBody,
  CommunityAwardDto,
  CommunityDto,
  MissionDto,
  PublicUserDto,
  RegisterUserBody,
  TelegramLinkDto,
  UserDto,
  VerifyMissionBody,
} from './wire/accounts';
export type { AddressStatsDto, RecommendedFeesDto, UnitOutputDto, UtxoDto } from './wire/chain';
export type {
  ActionPayloads,
  ActionResults,
  BorrowPayload,
  BorrowResult,
  CreateConfigPayload,
  DepositPayload,
  GuardianMethod,
  GuardianMethods,
  GuardianParams,
  GuardianResult,
  OpenResult,
  ProgressNotification,
  RepayPayload,
  RepayResult,
  RepossessPayload,
  ReserveParams,
  ReserveResult,
  SignedQuote,
  SignedVaultRequest,
  SpeedUpRequest,
  SpeedUpResult,
  VaultTxResult,
  WithdrawPayload,
} from './wire/guardian';
