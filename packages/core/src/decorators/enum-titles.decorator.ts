import 'reflect-metadata';
import { ENUM_TITLES } from '../metadata/keys';

/** Options of {@link EnumTitles}. */
export interface EnumTitlesOptions {
  /**
   * Send the titles the legacy way, `enum` + `enumNames`, on 2025-11-25 too (on 2025-06-18 it is
   * the only way). For clients that predate `oneOf` titles; single choices only.
   */
  legacy?: boolean;
}

/** What `@EnumTitles` records. @internal */
export interface EnumTitlesMetadata {
  titles: Readonly<Record<string, string>>;
  legacy: boolean;
}

/**
 * Gives each value of a choice (`@IsIn`, `@IsEnum`, or either with `{ each: true }` on an array)
 * a display title in elicitation forms. It only records metadata; {@link elicitationSchemaFor}
 * checks that every value has a title, and no title is left without a value.
 *
 * On 2025-11-25 a single choice becomes `oneOf: [{ const, title }]` and a multi-select
 * `items.anyOf: [{ const, title }]`; on 2025-06-18 (or with `{ legacy: true }`) a single choice
 * becomes `enum` + `enumNames`.
 *
 * @example
 * class Units {
 *   \@EnumTitles({ c: 'Celsius', f: 'Fahrenheit' }) \@IsIn(['c', 'f']) unit: 'c' | 'f' = 'c';
 * }
 */
export function EnumTitles(titles: Readonly<Record<string, string>>, options: EnumTitlesOptions = {}): PropertyDecorator {
  const metadata: EnumTitlesMetadata = { titles: Object.freeze({ ...titles }), legacy: options.legacy === true };
  return (target: object, property: string | symbol): void => {
    Reflect.defineMetadata(ENUM_TITLES, metadata, target, property);
  };
}
