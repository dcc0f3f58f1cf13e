import { defineConfig, devices } from '@playwright/test';

// Debian's Chromium only: nothing here may download a browser build. The journeys run at desktop
// (1440), phone (390) and the narrowest phone the app supports (360, body min-width), each width
// the journeys named below, against a real server the fixtures start (support/server.ts).
//
// Two workers: each starts its own server and devnet (a worker fixture), so a journey that moves the
// devnet's price moves only its own worker's. A file's journeys stay in one worker, in order
// (fullyParallel: false). One worker kept about one of CI's two cores busy on average (CPU time
// against wall time); E2E_WORKERS=1 runs them one at a time.
const chromium = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

// Journeys that start processes of their own and check the phone width themselves: a test skipped
// inside would still start its worker's server (the serverLog fixture is automatic), so the phone
// projects do not load them at all.
const desktopOnly = [/guardian-network\.spec\.ts$/];

// The phones are a layout check. The journeys whose point is a rule rather than a layout (each
// refused amount, the wallets' own errors and extensions, a resend, a speed-up) reach the same
// drawers the same way at every width, and the layout journeys below show those drawers at 390 px
// and 360 px: they run at 1440 px only, where they would otherwise repeat the logic two times more.
const rulesOnly = [
  /validation\.spec\.ts$/,
  /wallet-errors\.spec\.ts$/,
  /injected-wallets\.spec\.ts$/,
  /community-extensions\.spec\.ts$/,
  /resend\.spec\.ts$/,
  /speedup\.spec\.ts$/,
];

// The narrowest phone: the journeys whose checks depend on the width (welcome and create with the
// status column and the gauge, each action's drawer and the fullscreen chart, the dashboard's cards
// and the chart's ticks and marker tooltip, /network's sideways scroll, the polish checks' banner
// height and referral link, the price states' toast beside the back button). The rest run at
// 390 px and 1440 px, where their checks are the same at 360 px: the liquidation journey steps its
// own page down to 360 px for the checks that differ there (nothing scrolls sideways, Repossess on
// screen), and a disabled button's reason, the sign-in and missions journey, the live stream's
// header and the error screen check no size at all. Of the files kept, two journeys check no size
// either (narrowPhoneSkips): the quiet welcome page with its docs links, and the header's 24h change
// through a price fall; the header's width at 360 px is /network's sideways-scroll check.
const narrowPhone = [
  /create-vault\.spec\.ts$/,
  /actions\.spec\.ts$/,
  /reading\.spec\.ts$/,
  /network\.spec\.ts$/,
  /polish\.spec\.ts$/,
  /honest-states\.spec\.ts$/,
  /price-states\.spec\.ts$/,
];
const narrowPhoneSkips = [/a healthy page is quiet/, /the header's 24h change follows the price/];
// Those files do not run again at 390 px: no rule of the app's CSS falls between 360 and 390 px
// (its narrowest breakpoint is 400 px, MOBILE_QUERY 720 px), so at 390 px they would check the
// same layout with 30 px and 104 px of height more room. Of them the phone project keeps only the
// journeys the narrowest phone skips. Playwright matches `grep` against "project file title".
const atNarrowPhone = new RegExp(
  `[ /](${narrowPhone.map((f) => f.source.replace(/\$$/, '')).join('|')}) ` +
    `(?!${narrowPhoneSkips.map((t) => t.source).join('|')})`,
);

export default defineConfig({
  testDir: './tests',
  globalSetup: './global-setup.ts',
  timeout: 120_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS) || 2,
  // One retry: two journeys at once on two cores can time out where one alone would not. A retried
  // journey is reported as flaky in the run's output, never hidden. E2E_RETRIES=0 turns it off.
  retries: Number(process.env.E2E_RETRIES ?? 1),
  outputDir: './test-results',
  // bypassCSP lets the fixtures inject axe-core; the app's own CSP stays strict for people.
  // A failed journey keeps its trace (every action, its DOM snapshots, the network and the console)
  // and a screenshot of its end. The trace's film strip is left out: its screencast frames cost
  // Chromium about 40% of a journey's CPU time (a create-vault journey: 19 s with it, 11.5 s
  // without), which two workers on two cores pay in wall time.
  // Reduced motion: the app's own rule (styles/tokens.css) stops its looping animations (the
  // welcome scene, skeletons, spinners), which headless Chromium otherwise paints frame after frame
  // in software for as long as a page is open: a create-vault journey's Chromium took 25 s of CPU
  // with them, 13 s without. No journey checks a motion; the screenshots were taken so already.
  use: {
    launchOptions: chromium,
    trace: { mode: 'retain-on-failure', screenshots: false },
    screenshot: 'only-on-failure',
    bypassCSP: true,
    reducedMotion: 'reduce',
  },
  projects: [
    { name: 'desktop', testIgnore: desktopOnly, use: { viewport: { width: 1440, height: 900 } } },
    {
      name: 'phone',
      testIgnore: [...desktopOnly, ...rulesOnly],
      grepInvert: atNarrowPhone,
      use: {
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        userAgent: devices['Pixel 7'].userAgent,
        deviceScaleFactor: 2,
      },
    },
    {
      name: 'phone-360',
      testMatch: narrowPhone,
      grepInvert: narrowPhoneSkips,
      testIgnore: desktopOnly,
      use: {
        viewport: { width: 360, height: 740 },
        isMobile: true,
        hasTouch: true,
        userAgent: devices['Galaxy S9+'].userAgent,
        deviceScaleFactor: 2,
      },
    },
    {
      // The journey that runs a server with three guardian processes of its own, at desktop size,
      // once every other journey is done: beside another journey it loaded the 2-core machine
      // enough for the signet rehearsal's 3 s chain time-out to take the network for down.
      // Its two journeys share that one network: two networks at once were not ready in 60 s.
      name: 'desktop-network',
      testMatch: desktopOnly,
      dependencies: ['desktop', 'phone', 'phone-360'],
      use: { viewport: { width: 1440, height: 900 } },
    },
  ],
});
