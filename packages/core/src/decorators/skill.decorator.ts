import { SKILL_METHODS, addToListMetadata } from '../metadata/keys';
import type { SkillMethodMetadata, SkillOptions } from '../metadata/options';

/**
 * Marks a method as the source of a skill (SEP-2640) given in code: it returns the skill's files
 * (path in the skill → a string or bytes), SKILL.md included, and is called once, synchronously,
 * when the app is created; the files are hashed then, as a folder skill's are. The server declares
 * the Skills extension as soon as it has one. See docs/extensions.md.
 *
 * @example
 * \@Skill({ path: 'reports/weekly' })
 * weekly(): SkillFiles {
 *   return { 'SKILL.md': WEEKLY_MD, 'templates/table.md': TABLE_MD };
 * }
 */
export function Skill(options: SkillOptions): MethodDecorator {
  return (target, property) => {
    const recorded: SkillMethodMetadata = { method: String(property), options };
    addToListMetadata(SKILL_METHODS, [recorded], (target as { constructor: Function }).constructor, undefined, false);
  };
}
