// The code linter (issue 16): ESLint with typescript-eslint's recommended rules, every one at error
// level, over the TypeScript of src/, fixtures/, contract-tests/ and test/. `npm run lint` runs it
// (so does `npm test`). Generated code is not linted.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'src/generated/**',
      'mutation/**',
      '.stryker-tmp/**',
      'reports/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  ...tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks a value that is deliberately unused (a destructured field left out).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
);
