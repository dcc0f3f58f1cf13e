// What the Telegram messages say, and their facts per vault action: the title when submitted and
// when confirmed, and how often SPEC §7 retries the message (the create message 5 times, the
// others not). The dedupe keys are here too: the browser's call and the server's own history scan
// queue "submitted" under one key, so whichever comes first is the only one sent.
import {
  centsToUnitString,
  satsToBtcString,
  termSettledText,
  vaultExitedText,
  TELEGRAM_NOTIFY_RETRIES_ACTION,
  TELEGRAM_NOTIFY_RETRIES_CREATE,
  type TelegramNotifyDto,
  type VaultAction,
} from '@unit/protocol';

interface ActionMessages {
  submitted: string;
  confirmed: string;
  /** Retries after the first attempt (SPEC §7). */
  retries: number;
}

export const ACTION_MESSAGES: Record<VaultAction, ActionMessages> = {
  open: {
    submitted: 'Vault creation submitted',
    confirmed: 'Vault creation confirmed',
    retries: TELEGRAM_NOTIFY_RETRIES_CREATE,
  },
  deposit: {
    submitted: 'BTC deposit submitted',
    confirmed: 'BTC deposit confirmed',
    retries: TELEGRAM_NOTIFY_RETRIES_ACTION,
  },
  withdraw: {
    submitted: 'BTC withdrawal submitted',
    confirmed: 'BTC withdrawal confirmed',
    retries: TELEGRAM_NOTIFY_RETRIES_ACTION,
  },
  borrow: {
    submitted: 'Vault borrow submitted',
    confirmed: 'Vault borrow confirmed',
    retries: TELEGRAM_NOTIFY_RETRIES_ACTION,
  },
  repay: {
    submitted: 'UNIT repayment submitted',
    confirmed: 'UNIT repayment confirmed',
    retries: TELEGRAM_NOTIFY_RETRIES_ACTION,
  },
  repossess: {
    submitted: 'Liquidation claim submitted',
    confirmed: 'Liquidation claim confirmed',
    retries: TELEGRAM_NOTIFY_RETRIES_ACTION,
  },
};

/** Risk alerts are retried like the create message. */
export const RISK_ALERT_RETRIES = TELEGRAM_NOTIFY_RETRIES_CREATE;

/**
 * The explorer base for transaction links: an origin-relative one (the devnet's /explorer) is
 * made absolute with this server's public origin when it is known.
 */
export function explorerBase(explorerUrl: string, origin: string | undefined): string {
  return !explorerUrl.startsWith('http') && origin
    ? `${origin.replace(/\/$/, '')}/${explorerUrl.replace(/^\//, '')}`
    : explorerUrl;
}

export function txLine(explorerUrl: string, txid: string): string {
  return explorerUrl.startsWith('http')
    ? `${explorerUrl.replace(/\/$/, '')}/tx/${txid}`
    : `Transaction: ${txid}`;
}

export function notificationText(dto: TelegramNotifyDto, explorerUrl: string): string {
  const lines = [ACTION_MESSAGES[dto.tx_action].submitted];
  if (dto.btc_amount > 0) lines.push(`BTC: ${satsToBtcString(dto.btc_amount)}`);
  if (dto.unit_amount > 0) lines.push(`UNIT: ${centsToUnitString(dto.unit_amount)}`);
  lines.push(`Vault: ${dto.vault_id}`);
  lines.push(txLine(explorerUrl, dto.tx_id));
  return lines.join('\n');
}

/** The liquidated vault's own `x` record: its owner learns of the claim, not "submitted". */
export function repossessedText(vaultId: string, txid: string, explorerUrl: string): string {
  return `Your liquidated vault was repossessed.\nVault: ${vaultId}\n${txLine(explorerUrl, txid)}`;
}

/**
 * The guardians' settlement at the term, sent (`confirmed` false) and once in a block: what the
 * vault held, what happened to it, and where its owner's rest went.
 */
export function settledText(
  row: {
    vault_id: string;
    transaction_id: string;
    btc_amt: number;
    unit_amt: number;
    oracle_price: number;
  },
  explorerUrl: string,
  confirmed: boolean,
): string {
  // The dashboard's words (@unit/protocol termSettledText), so the two never say different things.
  const text = termSettledText({
    debtCents: BigInt(row.unit_amt),
    collateralSats: BigInt(row.btc_amt),
    priceUsd: row.oracle_price > 0 ? row.oracle_price : null,
  });
  const lines = [
    confirmed ? 'Term settlement confirmed' : 'Term settlement submitted',
    `${text.title}.`,
    `${text.body} ${text.whatToDo}`,
    `Vault: ${row.vault_id}`,
    txLine(explorerUrl, row.transaction_id),
  ];
  return lines.join('\n');
}

/**
 * The owner's exit, once in a block (the app learns of it only then): the dashboard's words
 * (@unit/protocol vaultExitedText), what the vault held and where it went.
 */
export function exitedText(
  row: { vault_id: string; transaction_id: string; btc_amt: number; unit_amt: number },
  address: string | null,
  explorerUrl: string,
): string {
  const text = vaultExitedText({
    collateralSats: BigInt(row.btc_amt),
    debtCents: BigInt(row.unit_amt),
    txid: row.transaction_id,
    address,
  });
  const lines = [
    'Vault exit confirmed',
    `${text.title}.`,
    `${text.body} ${text.whatToDo}`,
    `Vault: ${row.vault_id}`,
    txLine(explorerUrl, row.transaction_id),
  ];
  return lines.join('\n');
}

export function confirmedText(
  action: VaultAction,
  vaultId: string,
  txid: string,
  explorerUrl: string,
): string {
  return `${ACTION_MESSAGES[action].confirmed}\nVault: ${vaultId}\n${txLine(explorerUrl, txid)}`;
}

export const submittedKey = (txid: string, chat: string) => `tx:${txid}:${chat}:submitted`;
export const confirmedKey = (txid: string, chat: string) => `tx:${txid}:${chat}:confirmed`;
