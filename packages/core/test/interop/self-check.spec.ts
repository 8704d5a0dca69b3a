/**
 * The self-checks: with the library releases installed, every fast path passes its checks (so
 * `npm run test:latest-deps` fails when a newer release would turn one off); a deep read that is
 * there but no longer means what Hermes assumes is caught by the comparison with the public API,
 * not only a missing one. Each case runs in a module registry of its own (a fresh interop state)
 * and restores what it changed.
 */
import 'reflect-metadata';
import type { InteropStatus } from '../../src/interop/status';

type Report = typeof import('../../src/interop/report');

/** interopStatus() in a fresh module registry, after `prepare` (which returns how to undo it). */
function statusAfter(prepare: () => () => void): InteropStatus[] {
  let statuses: InteropStatus[] = [];
  jest.isolateModules(() => {
    const undo = prepare();
    try {
      statuses = (require('../../src/interop/report') as Report).interopStatus();
    } finally {
      undo();
    }
  });
  return statuses;
}

const off = (statuses: InteropStatus[]) => statuses.filter((s) => !s.fast).map((s) => [s.library, s.reason]);

describe('the self-checks', () => {
  it('pass for every library with the releases installed', () => {
    const statuses = statusAfter(() => () => undefined);
    expect(off(statuses)).toEqual([]);
    expect(statuses.map((s) => s.library)).toEqual(['class-validator', 'class-transformer', 'class-validator-jsonschema', 'validator']);
    for (const status of statuses) expect(status.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('catch a class-validator storage whose lookup no longer reads the rule map Hermes narrows', () => {
    const statuses = statusAfter(() => {
      const storage = require('class-validator').getMetadataStorage() as Record<string, unknown>;
      const proto = Object.getPrototypeOf(storage) as Record<string, (...args: unknown[]) => unknown>;
      // As a release that caches or moves the map would: the right rules, whatever view it is called on.
      storage.getTargetValidationMetadatas = (...args: unknown[]) => proto.getTargetValidationMetadatas.apply(storage, args);
      return () => delete storage.getTargetValidationMetadatas;
    });
    expect(off(statuses)).toEqual([['class-validator', 'getTargetValidationMetadatas() no longer reads the `validationMetadatas` map']]);
  });

  it("run class-validator's on the rules of the canary classes only, and give the storage its whole rule map back", () => {
    const storage = require('class-validator').getMetadataStorage() as { validationMetadatas: Map<unknown, unknown[]>; getTargetValidatorConstraints: unknown };
    const { IsInt } = require('class-validator') as typeof import('class-validator');
    class UnrelatedInput {}
    IsInt()(UnrelatedInput.prototype, 'n');
    const whole = storage.validationMetadatas;
    const seen: number[] = [];
    const statuses = statusAfter(() => {
      const own = Object.getPrototypeOf(storage).getTargetValidatorConstraints as (...args: unknown[]) => unknown;
      // What the check's own look-ups see of the map, and then a throw half-way through it.
      storage.getTargetValidatorConstraints = (...args: unknown[]) => {
        seen.push(storage.validationMetadatas.size);
        if (seen.length === 2) throw new Error('a storage that fails half-way');
        return own.apply(storage, args);
      };
      return () => delete (storage as Record<string, unknown>).getTargetValidatorConstraints;
    });
    expect(off(statuses)).toEqual([['class-validator', 'its self-check threw: a storage that fails half-way']]);
    expect(seen[0]).toBeLessThan(whole.size);
    expect(storage.validationMetadatas).toBe(whole);
    expect(whole.has(UnrelatedInput)).toBe(true);
  });

  it('catch a class-transformer storage that says other than what plainToInstance and instanceToPlain do', () => {
    const statuses = statusAfter(() => {
      const storage = require('class-transformer/cjs/storage').defaultMetadataStorage as Record<string, unknown>;
      // The library excludes through getExcludedMetadatas(); this one answers as if nothing were.
      storage.findExcludeMetadata = () => undefined;
      return () => delete storage.findExcludeMetadata;
    });
    expect(off(statuses)).toEqual([['class-transformer', 'the @Exclude of HermesCanaryShape.secret differs from what instanceToPlain writes']]);
  });

  it('catch a class-transformer storage without one of the metadata maps it knows', () => {
    const statuses = statusAfter(() => {
      const storage = require('class-transformer/cjs/storage').defaultMetadataStorage as Record<string, unknown>;
      const proto = Object.getPrototypeOf(storage) as Record<string, (...args: unknown[]) => unknown>;
      // As a release that renamed the map would: its own methods read the new one.
      storage._transforms = storage._transformMetadatas;
      delete storage._transformMetadatas;
      const reading = () => Object.assign(Object.create(storage) as object, { _transformMetadatas: storage._transforms });
      storage.findTransformMetadatas = (...args: unknown[]) => proto.findTransformMetadatas.apply(reading(), args);
      storage.addTransformMetadata = (...args: unknown[]) => proto.addTransformMetadata.apply(reading(), args);
      return () => {
        storage._transformMetadatas = storage._transforms;
        for (const field of ['_transforms', 'findTransformMetadatas', 'addTransformMetadata']) delete storage[field];
      };
    });
    expect(off(statuses)).toEqual([['class-transformer', "class-transformer/cjs/storage's defaultMetadataStorage no longer has the _transformMetadatas map"]]);
  });

  it('catch converters of class-validator-jsonschema in another shape', () => {
    const statuses = statusAfter(() => {
      const module = require('class-validator-jsonschema/build/defaultConverters') as Record<string, unknown>;
      const converters = module.defaultConverters;
      module.defaultConverters = new Map(Object.entries(converters as object));
      return () => (module.defaultConverters = converters);
    });
    expect(off(statuses)).toEqual([['class-validator-jsonschema', 'build/defaultConverters no longer exports a table of converters']]);
  });

  it('HERMES_INTEROP=public turns every fast path off, saying so', () => {
    const statuses = statusAfter(() => {
      process.env.HERMES_INTEROP = 'public';
      return () => delete process.env.HERMES_INTEROP;
    });
    expect(off(statuses).map(([, reason]) => reason)).toEqual(Array(4).fill('HERMES_INTEROP=public asks for the public API only'));
  });

  it('logs nothing when every fast path is on, and each fallback once per process, when that library is first needed', () => {
    jest.isolateModules(() => {
      const { reportInterop, interopStatus } = require('../../src/interop/report') as Report;
      const warn = jest.fn();
      const logger = { warn } as unknown as Parameters<Report['reportInterop']>[0];
      reportInterop(logger);
      interopStatus();
      expect(warn).not.toHaveBeenCalled();
    });
    jest.isolateModules(() => {
      process.env.HERMES_INTEROP = 'public';
      try {
        const { reportInterop } = require('../../src/interop/report') as Report;
        const warn = jest.fn();
        const logger = { warn } as unknown as Parameters<Report['reportInterop']>[0];
        const libraries = () => warn.mock.calls.map(([fields]) => (fields as { library: string }).library).sort();
        reportInterop(logger);
        reportInterop(logger);
        // Nothing is checked before something needs it: create itself checks nothing.
        expect(warn).not.toHaveBeenCalled();
        const { IsAlpha, IsString } = require('class-validator') as typeof import('class-validator');
        const { buildObjectSchema } = require('../../src/schema/schema-builder') as typeof import('../../src/schema/schema-builder');
        const { validateInput } = require('../../src/validation/validator') as typeof import('../../src/validation/validator');
        class Input {
          name!: string;
        }
        IsString()(Input.prototype, 'name');
        // A schema built reads class-validator's rules, class-transformer's decorators and class-validator-jsonschema's converters.
        expect(buildObjectSchema(Input)).toMatchObject({ properties: { name: { type: 'string' } } });
        buildObjectSchema(Input);
        expect(libraries()).toEqual(['class-transformer', 'class-validator', 'class-validator-jsonschema']);
        // validator.js's tables: with the first pattern of a locale's letters.
        class Named {
          name!: string;
        }
        IsAlpha('de-DE')(Named.prototype, 'name');
        expect(buildObjectSchema(Named)).toMatchObject({ properties: { name: { type: 'string', pattern: expect.any(String) } } });
        expect(validateInput(Input, { name: 1 }).ok).toBe(false);
        reportInterop(logger);
        expect(libraries()).toEqual(['class-transformer', 'class-validator', 'class-validator-jsonschema', 'validator']);
        expect(warn.mock.calls.map(([fields]) => fields.code)).toEqual(Array(4).fill('HERMES_INTEROP_FALLBACK'));
      } finally {
        delete process.env.HERMES_INTEROP;
      }
    });
  });
});
