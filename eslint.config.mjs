// ESLint (flat config): typescript-eslint's type-aware recommended rules over every TypeScript file
// of the repository (tsconfig.lint.json), the plain recommended rules over the scripts.
// `npm run lint` runs it together with Prettier's check; .ci/run runs `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.cache/**', '.scratch/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.lint.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // Decorators and the metadata libraries (reflect-metadata, class-validator, class-transformer)
      // type a class as `Function`; so does every place that hands one to them.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // `_name` marks a parameter kept for its position (a decorator's, an interface's).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Passing on what a `catch` caught (an `unknown`) is not rejecting with a non-Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    // The browser half of the MCP Apps example (the view, the demo host page): DOM types, bundled by esbuild.
    files: ['examples/apps/view/**/*.ts', 'examples/apps/host/**/*.ts'],
    languageOptions: { parserOptions: { project: './examples/apps/tsconfig.browser.json' } },
  },
  {
    // Tests and their support read JSON from the wire all the time: `any` from JSON.parse is their
    // daily bread, and an assertion that fails is the check. The sources get the full rule set.
    files: ['**/test/**/*.ts', 'test-support/**/*.ts', 'bench/src/**/*.ts', 'packages/create-hermes-mcp/template/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Fakes and fixtures implement promise-returning interfaces with async functions.
      '@typescript-eslint/require-await': 'off',
      // Tests build hostile and malformed values on purpose, load modules afresh with require(),
      // and print whatever they got in failure messages.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // The quarantine of library internals: what it reads has no types (`any`); each read is
    // shape-checked at run time instead, and checked against the public API once (docs/interop.md).
    files: ['packages/core/src/interop/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { project: false, projectService: false },
      globals: {
        module: 'writable',
        require: 'readonly',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
      },
    },
  },
);
