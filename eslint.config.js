import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', '.output', '.output-*', '.wxt', 'demo-output', 'test-results', 'playwright-report', 'bench-output'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Text from the API or the page is rendered as text, never as HTML.
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Render text with textContent or Preact, never HTML.' },
        { property: 'outerHTML', message: 'Render text with textContent or Preact, never HTML.' },
        { property: 'insertAdjacentHTML', message: 'Render text with textContent or Preact, never HTML.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Never render API or page text as HTML.' },
      ],
    },
  },
  {
    // Tests and tools may read serialised DOM to compare it.
    files: ['test/**', 'scripts/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
