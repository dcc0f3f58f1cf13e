// The fake exchanges live beside the feed parsers they answer (packages/guardian-net, whose
// guardians read the same feeds); the server's suites use them from there.
export * from '../../../packages/guardian-net/test/price-feeds';
