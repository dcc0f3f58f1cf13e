// The ledger an open validator rebuilds from the chain, and its digest (docs/protocol.md).
export * from './digest';
export * from './replay';
