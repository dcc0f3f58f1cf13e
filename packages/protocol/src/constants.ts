// SPEC §9 and ../shared/CONSTANTS.md: the one source of every business constant.
export const SATS_PER_BTC = 100_000_000n;
export const UNIT_CENTS_PER_UNIT = 100n;
