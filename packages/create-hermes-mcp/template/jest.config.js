/** Tests in test/, written in TypeScript, compiled by ts-jest with this project's tsconfig. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { tsconfig: { experimentalDecorators: true, emitDecoratorMetadata: true, strict: true, target: 'ES2022', module: 'commonjs', skipLibCheck: true, types: ['jest', 'node'] } },
    ],
  },
};
