import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', '.test-build/', 'client/dist/', 'console/dist/', 'node_modules/', '.redis/', 'data/', 'coverage/', 'bench/results/', '.tools/', 'openapi/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }]
    }
  }
)
