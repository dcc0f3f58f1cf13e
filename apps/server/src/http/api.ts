// The /api routes of prices, the oracle, vaults, liquidations, operation quotes, Telegram and
// health. Inputs are validated with zod at the edge; handlers get typed values.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import * as z from 'zod';
import {
  DEFAULT_CONFIG_CONSTANTS,
  estimateVsize,
  operationCostSats,
  type BitcoinPriceDto,
  type ConfigDto,
  type OperationQuoteDto,
  type TelegramNotifyDto,
} from '@unit/protocol';
import type { ServerConfig } from '../config';
import type { Oracle } from '../oracle/oracle';
import type { TelegramNotifier } from '../notify/telegram';
import type { Database } from '../store/schema';
import type { GuardianKeys } from '../store/keys';
import {
  getVault,
  getVaultByPubkey,
  historyPoints,
  toHistoryDto,
  toVaultDto,
  vaultHistory,
} from '../store/vaults';
import { listLiquidations } from '../store/liquidations';
import { ApiError, notFound, parseInput } from './errors';
import { WRITE_LIMIT } from './security';

export interface ApiDeps {
  config: ServerConfig;
  db: Kysely<Database>;
  oracle: Oracle;
  keys: GuardianKeys;
  notifier: TelegramNotifier;
  /** The UNIT rune id once the chain knows it (the devnet etches it at genesis). */
  unitRuneId(): string;
}

const DOCS_URL = 'https://docs.ducatprotocol.com';
const SOCIAL = {
  twitter: 'https://x.com/DucatProtocol',
  discord: 'https://discord.gg/ducat',
  telegram: 'https://t.me/ducatprotocol',
};

const hex = (bytes: number) =>
  z
    .string()
    .regex(new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`), `expected ${bytes} bytes of hex`)
    .transform((s) => s.toLowerCase());

const periodQuery = z.object({ timePeriod: z.enum(['24h', '7d', '30d', '1y']) });

const quoteQuery = z.object({
  th: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  ts: z.coerce.number().int().min(0).max(0xffff_ffff),
});

const operationQuery = z.object({
  action: z.enum(['open', 'deposit', 'withdraw', 'borrow', 'repay', 'repossess']),
  feeRate: z.coerce.number().positive().max(10_000),
  inputs: z.coerce.number().int().min(0).max(500).optional(),
});

const devnetPriceBody = z.object({ usd: z.number().positive().max(100_000_000) });

const address = z.string().regex(/^[A-Za-z0-9]{14,90}$/, 'expected a Bitcoin address');
const txid = hex(32);

const notifyBody: z.ZodType<TelegramNotifyDto> = z.object({
  network: z.enum(['devnet', 'signet', 'mutinynet', 'mainnet']),
  address,
  tx_id: txid,
  tx_action: z.enum(['open', 'deposit', 'withdraw', 'borrow', 'repay', 'repossess']),
  btc_amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  unit_amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  vault_id: z.string().max(100),
});

export function configDto(deps: ApiDeps): ConfigDto {
  const { config, keys, notifier } = deps;
  return {
    network: config.network,
    ...config.services,
    guardianUrl: '/guardian',
    docsUrl: DOCS_URL,
    social: SOCIAL,
    guardPubkey: keys.guardPubkey,
    treasuryPubkey: keys.treasuryPubkey,
    unitRuneId: deps.unitRuneId(),
    telegramBot: notifier.botUsername,
    constants: { ...DEFAULT_CONFIG_CONSTANTS, speedUpAfterSeconds: config.speedUpAfterSeconds },
  };
}

export function registerApiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { config, db, oracle, keys, notifier } = deps;

  app.get('/api/health', async () => {
    const price = oracle.price();
    return { status: 'ok', network: config.network, price_time: price.timestamp };
  });

  app.get('/api/config', async () => configDto(deps));

  app.get('/api/bitcoin-price', async (): Promise<BitcoinPriceDto> => {
    const { priceCents, timestamp } = oracle.price();
    return { USD: priceCents / 100, time: timestamp };
  });

  app.get('/api/price-history', async (request) => {
    const { timePeriod } = parseInput(periodQuery, request.query);
    return oracle.history(timePeriod);
  });

  app.get('/api/oracle/quote', async (request) => {
    const { th, ts } = parseInput(quoteQuery, request.query);
    // A stamp from the future would let a quote outlive its 300 s.
    if (ts > Math.floor(Date.now() / 1000) + 60) {
      throw new ApiError(400, 'bad_request', 'ts is in the future');
    }
    return oracle.quote(th, ts);
  });

  app.post('/api/devnet/price', { config: WRITE_LIMIT }, async (request) => {
    if (config.network !== 'devnet') {
      throw new ApiError(403, 'not_devnet', 'The price can only be set on the devnet');
    }
    const { usd } = parseInput(devnetPriceBody, request.body);
    const point = await oracle.setPrice(Math.round(usd * 100));
    return { USD: point.priceCents / 100, time: point.timestamp } satisfies BitcoinPriceDto;
  });

  app.get('/api/vaults/by-pubkey/:pubkey', async (request) => {
    const { pubkey } = parseInput(z.object({ pubkey: hex(32) }), request.params);
    const vault = await getVaultByPubkey(db, pubkey);
    if (!vault) throw notFound('No vault for this public key');
    return toVaultDto(vault, keys.guardPubkey);
  });

  const vaultParams = z.object({ vaultId: z.string().min(1).max(100) });

  app.get('/api/vaults/:vaultId/history', async (request) => {
    const { vaultId } = parseInput(vaultParams, request.params);
    if (!(await getVault(db, vaultId))) throw notFound('No such vault');
    return (await vaultHistory(db, vaultId)).map(toHistoryDto);
  });

  app.get('/api/vaults/:vaultId/points', async (request) => {
    const { vaultId } = parseInput(vaultParams, request.params);
    if (!(await getVault(db, vaultId))) throw notFound('No such vault');
    return historyPoints(await vaultHistory(db, vaultId));
  });

  app.get('/api/liquidations', async () => listLiquidations(db));

  app.get('/api/quote', async (request): Promise<OperationQuoteDto> => {
    const { action, feeRate, inputs } = parseInput(operationQuery, request.query);
    // A withdraw pays its fee from the vault; every other action spends at least one payment UTXO.
    const paymentInputs = inputs ?? (action === 'withdraw' ? 0 : 1);
    const cost = operationCostSats({ action, paymentInputs, feeRate });
    return {
      action,
      fee_rate: feeRate,
      vsize: estimateVsize({ action, paymentInputs }),
      operation_cost_sats: Number(cost),
    };
  });

  app.post('/api/notify', { config: WRITE_LIMIT }, async (request, reply) => {
    const dto = parseInput(notifyBody, request.body);
    const queued = await notifier.notify(dto);
    return reply.status(202).send({ queued, enabled: notifier.enabled });
  });
}
