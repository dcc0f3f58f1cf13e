// Core of @unit/bitcoin: the vault script, the state record, runestones, script types, addresses
// and the signature checks the devnet runs. src/flows builds on these.
export * from './vault-script';
export * from './state-record';
export * from './price-commitment';
export * from './transaction';
export * from './runestone';
export * from './rune-commitment';
export * from './script-type';
export * from './address';
export * from './verify';
export * from './bip322';
export * from './vault-signature';
export * from './term-leaves';
export * from './exit-spend';
export * from './exit-chain';
export * from './exit-describe';
export * from './term-settlement';
