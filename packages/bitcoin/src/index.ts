// Core: scripts, addresses, the vault output, the state record, runestones, signature checks.
export * from './core';
// Flows: coin selection, max-deposit refinement, the PSBT of each vault action, signing.
export * from './flows';
// Actions: one declaration per vault action (inputs, outputs, payload, checks, result).
export * from './actions';
// Ledger: every vault rebuilt from the chain alone, and the digest validators and the app compare.
export * from './ledger';
// Requests: what a client reserves, reads, builds and signs for a vault action or a speed-up.
export * from './requests';
