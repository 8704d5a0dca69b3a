/**
 * Tests in test/, written in TypeScript, compiled by SWC (@swc/jest) with legacy decorators and
 * decorator metadata, as tsc compiles src/ with this project's tsconfig (`experimentalDecorators`,
 * `emitDecoratorMetadata`). SWC does not check types: `npm run build` (tsc) does. It takes any
 * TypeScript, 5 or 7, since it does not use the compiler.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        module: { type: 'commonjs' },
        jsc: { target: 'es2022', parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true } },
      },
    ],
  },
};
