/**
 * Skills given in code: the `@Skill` methods of the server class and its components, called once
 * at bootstrap for their files. The reader of what `@Skill` records.
 */
import { isThenable } from '@hermes-mcp/protocol';
import { HermesError } from '../errors';
import { SKILL_METHODS } from '../metadata/keys';
import type { SkillFiles, SkillMethodMetadata } from '../metadata/options';

/** A skill given in code: its path, where it comes from (for messages), its files. */
export interface CodeSkill {
  readonly path: string;
  readonly origin: string;
  readonly files: SkillFiles;
}

/** The skills of the `@Skill` methods of `classes` (base classes' included), each method called once on its instance. */
export function codeSkillsOf(classes: readonly Function[], instances: readonly unknown[]): CodeSkill[] {
  return classes.flatMap((cls, index) => {
    const recorded: SkillMethodMetadata[] = [];
    for (let c: Function | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
      recorded.push(...((Reflect.getOwnMetadata(SKILL_METHODS, c) as SkillMethodMetadata[] | undefined) ?? []));
    }
    return recorded.map(({ method, options }) => {
      const origin = `@Skill ${cls.name}.${method}`;
      if (typeof options?.path !== 'string') throw new HermesError('HERMES_INVALID_OPTIONS', `${origin} needs a \`path\` (the skill path, 'reports/weekly').`);
      const files = (instances[index] as Record<string, () => unknown>)[method]();
      if (isThenable(files)) {
        throw new HermesError('HERMES_INVALID_OPTIONS', `${origin} returned a promise: @Skill methods give their files synchronously (they are hashed when the app is created).`);
      }
      return { path: options.path, origin, files: files as SkillFiles };
    });
  });
}
