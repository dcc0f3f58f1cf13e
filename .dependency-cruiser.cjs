// The import structure the lint enforces (`npm run lint`): no circles, type-only imports included,
// and the layers of README's design table. Test files may reach across layers.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle hides which module owns a fact.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'protocol-is-a-leaf',
      severity: 'error',
      comment: 'packages/protocol holds the rules and imports nothing of ours.',
      from: { path: '^packages/protocol/' },
      to: { path: '^(packages/(?!protocol/)|apps/|e2e/)' },
    },
    {
      name: 'bitcoin-imports-protocol-only',
      severity: 'error',
      from: { path: '^packages/bitcoin/' },
      to: { path: '^(apps/|e2e/)' },
    },
    {
      name: 'validator-needs-nothing-of-the-app',
      severity: 'error',
      comment:
        'An open validator reads the chain alone: no store, no key, no guardian, no server module.',
      from: { path: '^apps/server/src/validator/' },
      to: { path: '^apps/server/src/(?!validator/)' },
    },
    {
      name: 'web-shared-knows-no-feature',
      severity: 'error',
      comment:
        'api, ui, wallet, auth and flows serve every page: they import no page, widget or the app shell.',
      from: { path: '^apps/web/src/(api|ui|wallet|auth|flows|styles)/' },
      to: { path: '^apps/web/src/(app|vault|liquidations|missions|layout|chart|transactions)/' },
    },
    {
      name: 'web-widgets-know-no-page',
      severity: 'error',
      comment:
        'The chart, the transactions table and the layout are used by pages, not the reverse.',
      from: { path: '^apps/web/src/(chart|transactions|layout)/' },
      to: { path: '^apps/web/src/(app|vault|liquidations|missions)/' },
    },
    {
      name: 'web-pages-apart',
      severity: 'error',
      comment:
        'A page (vault, liquidations, missions) imports no other page and not the app shell.',
      from: { path: '^apps/web/src/(vault|liquidations|missions)/' },
      to: {
        path: '^apps/web/src/(app|vault|liquidations|missions)/',
        pathNot: '^apps/web/src/$1/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '/dist/', '\\.test\\.tsx?$', '^apps/[^/]+/test/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
