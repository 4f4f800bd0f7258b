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
  {
    // The request's variables are typed by the pipeline's env (PipelineVariables, src/http/pipeline.ts):
    // one read with `as` would hide a variable whose type changed. (`input` is the exception: the
    // pipeline validated it against the operation, which gives it the operation's generated type.)
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "TSAsExpression > CallExpression[callee.property.name='get'][arguments.0.value=/^(principal|operationId|credentialId|rawBody|ignoredFields|strictFields|answerMode)$/]",
          message:
            'A request variable is typed by the env of its Context (PipelineEnv): type the Context, not the value.',
        },
      ],
    },
  },
);
