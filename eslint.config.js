// One lint setup for every workspace: typescript-eslint's recommended rules, React hooks rules for the web app.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import maxLinesOutsideComponents from './eslint-rules/max-lines-outside-components.js';

/** Tests, their helpers and the browser journeys: the size rules below do not apply to them. */
const TEST_FILES = ['**/*.test.{ts,tsx}', '**/test/**', 'e2e/**'];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/data/**',
      '**/.test-results/**',
      'e2e/screenshots/**',
      'e2e/test-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Sizes: no source file over 400 lines, no function over 150 lines. React components
    // (.tsx, PascalCase) are screens and may be longer; every other function is measured, in .tsx
    // files too (eslint-rules/max-lines-outside-components.js).
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    ignores: TEST_FILES,
    plugins: { unit: { rules: { 'max-lines-per-function': maxLinesOutsideComponents } } },
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 150 }],
    },
  },
  {
    files: ['**/*.tsx'],
    ignores: TEST_FILES,
    rules: {
      'max-lines-per-function': 'off',
      'unit/max-lines-per-function': ['error', { max: 150 }],
    },
  },
  {
    // Playwright reads a fixture's dependencies from its destructured first parameter, so a fixture
    // that needs none must take `{}`.
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
);
