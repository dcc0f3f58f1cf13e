// The import structure the lint enforces (`npm run lint`): no circles, type-only imports included,
// and the layers of README's design table. Test files may reach across layers.

const SERVER = '^apps/server/src/';

// The server's folders as the house reads from the top (docs/design.md, "Layers"): the entry, HTTP
// and the jobs, the roles, storage and the chain, then the base every layer uses. Each imports only
// those listed after it, so an import that points up the list is an error; a new folder or root
// file takes its place here before it may import anything.
const SERVER_LAYERS = [
  // The entry: the server's start and composition root, and the commands.
  ['entry', '(main|app|startup|start-config|check-config)\\.ts$'],
  ['operator', 'operator/'],
  ['exit', 'exit/'],
  ['validator', 'validator/'],
  // HTTP and the jobs.
  ['plugins', 'plugins/'],
  ['jobs', 'jobs/'],
  ['http', 'http/'],
  // The roles.
  ['notify', 'notify/'],
  ['missions', 'missions/'],
  ['auth', 'auth/'],
  ['oracle', 'oracle/'],
  ['network-client', 'network-client/'],
  ['cosign', 'cosign/'],
  // Storage and the chain.
  ['cluster', 'cluster/'],
  ['devnet', 'devnet/'],
  ['store', 'store/'],
  ['chain', 'chain/'],
  ['rpc', 'rpc/'],
  // The base: configuration, errors, the logger, HTML escaping.
  ['base', '(config|config-schema|config-problems|errors|logger|html)\\.ts$'],
];

const anyOf = (layers) => `${SERVER}(${layers.map(([, path]) => path).join('|')})`;

/** One rule per layer below the top: it imports none of the layers above it. */
const serverLayerRules = SERVER_LAYERS.slice(1).map(([name, path], index) => ({
  name: `server-layer-${name}`,
  severity: 'error',
  comment: `apps/server/src/${path.replaceAll('\\', '')} imports no server folder above it (.dependency-cruiser.cjs, SERVER_LAYERS).`,
  from: { path: `${SERVER}(${path})` },
  to: { path: anyOf(SERVER_LAYERS.slice(0, index + 1)) },
}));

const WEB = '^apps/web/src/';
const WEB_PAGES = '(vault|liquidations|missions)/';

// The web app's folders from the top: the app shell, the pages, the widgets pages use, and what
// serves every page. Each imports none of those listed before it.
const WEB_LAYERS = [
  ['app', 'The app shell.', '(app)/'],
  ['pages', 'A page (vault, liquidations, missions) does not import the app shell.', WEB_PAGES],
  [
    'widgets',
    'The chart, the transactions table and the layout are used by pages, not the reverse.',
    '(chart|transactions|layout)/',
  ],
  [
    'shared',
    'api, ui, wallet, auth and flows serve every page: they import no page, widget or the app shell.',
    '(api|ui|wallet|auth|flows|styles)/',
  ],
];

/** One rule per web layer below the top: it imports none of the layers above it. */
const webLayerRules = WEB_LAYERS.slice(1).map(([name, comment, path], index) => ({
  name: `web-layer-${name}`,
  severity: 'error',
  comment,
  from: { path: `${WEB}${path}` },
  to: {
    path: `${WEB}(${WEB_LAYERS.slice(0, index + 1)
      .map(([, , above]) => above)
      .join('|')})`,
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...serverLayerRules,
    {
      name: 'server-file-has-a-layer',
      severity: 'error',
      comment: 'Every server folder and root file has its place in SERVER_LAYERS.',
      from: { path: SERVER, pathNot: anyOf(SERVER_LAYERS) },
      to: {},
    },
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
    ...webLayerRules,
    {
      name: 'web-pages-apart',
      severity: 'error',
      comment: 'A page (vault, liquidations, missions) imports no other page.',
      from: { path: `${WEB}${WEB_PAGES}` },
      to: { path: `${WEB}${WEB_PAGES}`, pathNot: `${WEB}$1/` },
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
