import 'reflect-metadata';
import { Type } from 'class-transformer';
import { Allow, IsArray, IsDate, IsInt, IsOptional, IsString, Length, Min, Validate, ValidateNested, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';
import { McpHeader } from '../../src/decorators/mcp-header.decorator';
import { HermesError } from '../../src/errors';
import { ValidationIssue, formatIssues, validateInput, validateInputAsync } from '../../src/validation/validator';

class Address {
  @IsString() @Length(2, 50) city!: string;
}

class Line {
  @IsString() sku!: string;
  @IsInt() @Min(1) qty!: number;
}

class Order {
  @IsString() name!: string;
  @ValidateNested() @Type(() => Address) address!: Address;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Line) lines?: Line[];
  @IsOptional() @Allow() note?: unknown;
}

const order = { name: 'Ann', address: { city: 'Paris' } };

function issuesOf(cls: new () => object, input: unknown, options = {}): ValidationIssue[] {
  const result = validateInput(cls, input, options);
  if (result.ok) throw new Error('expected the input to be refused');
  return result.issues;
}

describe('validateInput', () => {
  it('returns an instance of the class, nested instances included', () => {
    const result = validateInput(Order, { ...order, lines: [{ sku: 'tea', qty: 2 }] });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toBeInstanceOf(Order);
    expect(result.value.address).toBeInstanceOf(Address);
    expect(result.value.lines![0]).toBeInstanceOf(Line);
  });

  it('names nested fields with dots', () => {
    expect(issuesOf(Order, { ...order, address: { city: 'P' } })).toEqual([
      { path: 'address.city', constraints: { isLength: 'address.city must be longer than or equal to 2 characters' } },
    ]);
  });

  it('names array elements with [i]', () => {
    const issues = issuesOf(Order, { ...order, lines: [{ sku: 'tea', qty: 1 }, { sku: 'cup', qty: 0 }, 'lid'] });
    expect(issues).toEqual([
      { path: 'lines[1].qty', constraints: { min: 'lines[1].qty must not be less than 1' } },
      { path: 'lines[2]', constraints: { nestedValidation: 'lines[2] must be a Line object, not a string' } },
    ]);
  });

  it('pins each: true failures to the elements that fail, in nested classes too', () => {
    class Tagged {
      @IsArray() @IsString({ each: true }) @Length(2, 5, { each: true }) tags!: string[];
    }
    class Holder {
      @ValidateNested({ each: true }) @Type(() => Tagged) items!: Tagged[];
    }
    expect(issuesOf(Tagged, { tags: ['ok', 7, 'toolong'] })).toEqual([
      { path: 'tags[1]', constraints: { isString: 'tags[1] must be a string, not a number', isLength: 'tags[1] must be a string, not a number' } },
      { path: 'tags[2]', constraints: { isLength: 'tags[2] must be shorter than or equal to 5 characters' } },
    ]);
    expect(issuesOf(Holder, { items: [{ tags: ['ok'] }, { tags: ['x'] }] })).toEqual([
      { path: 'items[1].tags[0]', constraints: { isLength: 'items[1].tags[0] must be longer than or equal to 2 characters' } },
    ]);
  });

  it('reports every field, and several constraints of one field together', () => {
    const issues = issuesOf(Order, { name: 5, address: { city: 7 } });
    expect(issues.map((issue) => issue.path)).toEqual(['name', 'address.city']);
    expect(Object.keys(issues[1].constraints).sort()).toEqual(['isLength', 'isString']);
  });

  it.each([
    ['null', null, 'the input must be a JSON object, not null'],
    ['an array', [order], 'the input must be a JSON object, not an array'],
    ['a string', 'Ann', 'the input must be a JSON object, not a string'],
    ['a number', 42, 'the input must be a JSON object, not a number'],
    ['undefined', undefined, 'the input is required: a JSON object'],
  ])('refuses %s at the root with one issue', (_label, input, message) => {
    expect(issuesOf(Order, input)).toEqual([{ path: '', constraints: { isObject: message } }]);
  });

  it('does not convert types', () => {
    expect(issuesOf(Order, { ...order, lines: [{ sku: 'tea', qty: '2' }] }).map((i) => i.path)).toEqual(['lines[0].qty']);
  });

  it('strips unknown keys at every depth by default', () => {
    const result = validateInput(Order, { ...order, extra: 1, address: { city: 'Paris', floor: 3 } });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect({ ...result.value }).toEqual({ name: 'Ann', address: { city: 'Paris' } });
    expect(result.value.address).toEqual({ city: 'Paris' });
  });

  it('keeps unknown keys with whitelist: false, and what @Allow lets through', () => {
    const result = validateInput(Order, { ...order, extra: 1, note: { free: ['form'] } }, { whitelist: false });
    expect(result.ok && { ...result.value }).toEqual({ ...order, extra: 1, note: { free: ['form'] } });
  });

  it('reports unknown keys with forbidNonWhitelisted', () => {
    const issues = issuesOf(Order, { ...order, extra: 1, address: { city: 'Paris', floor: 3 } }, { forbidNonWhitelisted: true });
    expect(issues).toEqual([
      { path: 'extra', constraints: { whitelistValidation: 'extra is not a known field: leave it out' } },
      { path: 'address.floor', constraints: { whitelistValidation: 'address.floor is not a known field: leave it out' } },
    ]);
  });

  it('accepts an instance of the class as input (tool output)', () => {
    const address = Object.assign(new Address(), { city: 'Lima' });
    expect(validateInput(Address, address, { whitelist: false }).ok).toBe(true);
  });

  it('takes a class without decorators as an input without rules', () => {
    class Nothing {}
    const result = validateInput(Nothing, { a: 1 });
    expect(result.ok && { ...result.value }).toEqual({});
    expect(issuesOf(Nothing, { a: 1 }, { forbidNonWhitelisted: true })).toEqual([{ path: 'a', constraints: { whitelistValidation: 'a is not a known field: leave it out' } }]);
  });

  it('ignores a JSON "__proto__" key', () => {
    const result = validateInput(Order, JSON.parse('{"name":"Ann","address":{"city":"Paris"},"__proto__":{"polluted":true}}'));
    expect(result.ok).toBe(true);
    expect(result.ok && Object.getPrototypeOf(result.value)).toBe(Order.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps an object no decorator transforms as it was sent (keys named like Object.prototype members, a constructor key), in nested classes too', async () => {
    class Bag {
      @Allow() data?: unknown;
    }
    class Holder {
      @ValidateNested() @Type(() => Bag) bag!: Bag;
      @Allow() own?: unknown;
    }
    const data = JSON.parse('{"constructor":1,"hasOwnProperty":2,"toString":"x","deep":{"constructor":{"a":1}}}') as unknown;
    const input = { bag: { data }, own: data };
    for (const result of [validateInput(Holder, input), await validateInputAsync(Holder, input)]) {
      expect(result.ok).toBe(true);
      expect(result.ok && result.value.bag).toBeInstanceOf(Bag);
      expect(result.ok && [result.value.bag.data, result.value.own]).toEqual([data, data]);
    }
  });

  it('refuses, before class-transformer, what the published schema refuses: a date that is not ISO 8601, an array for one object, null for a header', () => {
    class When {
      @Type(() => Date) @IsDate() at!: Date;
    }
    class Trip {
      @ValidateNested() @Type(() => When) start!: When;
      @ValidateNested({ each: true }) @Type(() => When) stops!: When[];
      @IsOptional() @McpHeader('Region') @IsString() region?: string;
    }
    const ok = { start: { at: '2024-05-01' }, stops: [{ at: '2024-05-01T10:00:00Z' }] };
    expect(validateInput(Trip, ok).ok).toBe(true);
    expect(issuesOf(Trip, { ...ok, start: { at: 'May 1, 2024' } })).toEqual([
      { path: 'start.at', constraints: { isDate: 'start.at must be an ISO 8601 date (2024-05-01) or date-time (2024-05-01T10:00:00Z) string' } },
    ]);
    expect(issuesOf(Trip, { ...ok, stops: [{ at: 0 }, { at: '2024-02-30' }] })).toEqual([
      { path: 'stops[0].at', constraints: { isDate: 'stops[0].at must be an ISO 8601 date (2024-05-01) or date-time (2024-05-01T10:00:00Z) string, not a number' } },
      { path: 'stops[1].at', constraints: { isDate: 'stops[1].at must be an ISO 8601 date (2024-05-01) or date-time (2024-05-01T10:00:00Z) string' } },
    ]);
    expect(issuesOf(Trip, { ...ok, start: {} })).toEqual([
      { path: 'start.at', constraints: { isDate: 'start.at is required: an ISO 8601 date (2024-05-01) or date-time (2024-05-01T10:00:00Z) string' } },
    ]);
    expect(issuesOf(Trip, { ...ok, start: [{ at: '2024-05-01' }] })).toEqual([{ path: 'start', constraints: { nestedValidation: 'start must be one When object, not an array' } }]);
    expect(issuesOf(Trip, { ...ok, stops: { at: '2024-05-01' } })).toEqual([
      { path: 'stops', constraints: { nestedValidation: 'stops must be an array of When objects, not an object' } },
    ]);
    expect(issuesOf(Trip, { ...ok, stops: [[{ at: '2024-05-01' }]] }).map((issue) => issue.path)).toEqual(['stops[0]']);
    expect(validateInput(Trip, { ...ok, region: 'eu' }).ok).toBe(true);
    expect(issuesOf(Trip, { ...ok, region: null })).toEqual([
      { path: 'region', constraints: { mcpHeader: 'region is sent as the Mcp-Param-Region header too: leave it out rather than send null' } },
    ]);
  });

  it('takes a Map of nested objects, every key kept as sent, each value an instance of the class (objects inside kept as sent too)', async () => {
    class Bag {
      @Allow() data?: unknown;
    }
    class Place {
      @ValidateNested() @Type(() => Address) address!: Address;
      @IsOptional() @ValidateNested() @Type(() => Bag) bag?: Bag;
    }
    class Atlas {
      @ValidateNested({ each: true }) @Type(() => Place) places!: Map<string, Place>;
    }
    const data = JSON.parse('{"constructor":1,"toString":"x"}') as unknown;
    const places = JSON.parse(
      '{"home":{"address":{"city":"Paris"},"bag":{"data":{"constructor":1,"toString":"x"}}},"size":{"address":{"city":"Lima"}},"toString":{"address":{"city":"Rome"}}}',
    ) as Record<string, unknown>;
    for (const result of [validateInput(Atlas, { places }), await validateInputAsync(Atlas, { places })]) {
      expect(result.ok).toBe(true);
      const map = result.ok ? result.value.places : undefined;
      expect(map).toBeInstanceOf(Map);
      expect([...map!.keys()]).toEqual(['home', 'size', 'toString']);
      for (const place of map!.values()) expect(place).toBeInstanceOf(Place);
      expect(map!.get('home')!.bag!.data).toEqual(data);
    }
    expect(issuesOf(Atlas, { places: { home: { address: { city: 1 } }, size: { address: { city: 'Lima' } } } }).map((issue) => issue.path)).toEqual(['places.home.address.city']);
    expect(issuesOf(Atlas, JSON.parse('{"places":{"size":{"address":{"city":1}}}}')).map((issue) => issue.path)).toEqual(['places.size.address.city']);
    // The declared shape: an object whose values are Place objects.
    expect(issuesOf(Atlas, { places: [{ address: { city: 'Paris' } }] })).toEqual([
      { path: 'places', constraints: { nestedValidation: 'places must be an object whose values are Place objects, not an array' } },
    ]);
    expect(issuesOf(Atlas, { places: { home: [] } })).toEqual([{ path: 'places.home', constraints: { nestedValidation: 'places.home must be one Place object, not an array' } }]);
  });

  it('takes a Set of nested objects, objects inside each kept as sent', () => {
    class Bag {
      @Allow() data?: unknown;
    }
    class Bags {
      @ValidateNested({ each: true }) @Type(() => Bag) bags!: Set<Bag>;
    }
    const data = JSON.parse('{"constructor":1,"hasOwnProperty":2}') as unknown;
    const result = validateInput(Bags, { bags: [null, { data }, { data: 1 }] });
    expect(result.ok).toBe(false); // null is no Bag
    const kept = validateInput(Bags, { bags: [{ data }, { data: 1 }] });
    expect(kept.ok && [...kept.value.bags].map((bag) => bag.data)).toEqual([data, 1]);
  });

  it('with forbidNonWhitelisted, refuses the keys class-transformer drops before the whitelist runs (__proto__, constructor, a method name), at every level', () => {
    class Town {
      @IsString() city!: string;
      label(): string {
        return this.city;
      }
    }
    class Trip {
      @ValidateNested() @Type(() => Town) from!: Town;
      @IsArray() @ValidateNested({ each: true }) @Type(() => Town) stops!: Town[];
      @IsOptional() @ValidateNested({ each: true }) @Type(() => Town) named?: Map<string, Town>;
    }
    const forbid = { forbidNonWhitelisted: true };
    const input = JSON.parse(
      '{"from":{"city":"Paris","toString":1},"stops":[{"city":"Lima"},{"city":"Rome","label":"x"}],"named":{"a":{"city":"Oslo","__proto__":{}}},"constructor":1,"hasOwnProperty":null}',
    ) as unknown;
    expect(issuesOf(Trip, input, forbid)).toEqual(
      ['constructor', 'hasOwnProperty', 'from.toString', 'stops[1].label', 'named.a.__proto__'].map((path) => ({
        path,
        constraints: { whitelistValidation: `${path} is not a known field: leave it out` },
      })),
    );
    // Without the option they are stripped, as every unknown key is.
    const result = validateInput(Trip, input);
    expect(result.ok && result.value.from).toEqual(Object.assign(new Town(), { city: 'Paris' }));
    expect(validateInput(Trip, { from: { city: 'Paris' }, stops: [] }, forbid).ok).toBe(true);
  });

  it('never throws on input that breaks the transformer', () => {
    const hostile = { ...order };
    Object.defineProperty(hostile, 'note', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(issuesOf(Order, hostile)).toEqual([{ path: '', constraints: { unreadable: 'the input could not be read or checked' } }]);
  });
});

describe('async validators', () => {
  @ValidatorConstraint({ name: 'isFreeName', async: true })
  class IsFreeName implements ValidatorConstraintInterface {
    async validate(value: unknown) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return value !== 'taken';
    }
    defaultMessage() {
      return 'name is already taken';
    }
  }

  class Signup {
    @IsString() @Validate(IsFreeName) name!: string;
  }

  class Team {
    @ValidateNested() @Type(() => Signup) lead!: Signup;
  }

  it('are refused by validateInput with the fix, even in a nested class', () => {
    expect(() => validateInput(Signup, { name: 'ann' })).toThrow(HermesError);
    expect(() => validateInput(Team, { lead: { name: 'ann' } })).toThrow(/use validateInputAsync/);
  });

  it('run in validateInputAsync', async () => {
    expect((await validateInputAsync(Signup, { name: 'ann' })).ok).toBe(true);
    expect(await validateInputAsync(Team, { lead: { name: 'taken' } })).toEqual({
      ok: false,
      issues: [{ path: 'lead.name', constraints: { isFreeName: 'name is already taken' } }],
    });
  });

  it('validateInputAsync serves classes without async validators too', async () => {
    expect((await validateInputAsync(Order, order)).ok).toBe(true);
    expect(await validateInputAsync(Order, null)).toEqual({ ok: false, issues: [{ path: '', constraints: { isObject: 'the input must be a JSON object, not null' } }] });
  });
});

describe('formatIssues', () => {
  it('writes one line per issue, path first', () => {
    expect(formatIssues(issuesOf(Address, { city: 'P' }))).toBe('city must be longer than or equal to 2 characters');
    const issues = issuesOf(Order, { name: 5, address: { city: 'Paris' }, lines: [{ sku: 'tea', qty: 0 }] });
    expect(formatIssues(issues)).toBe('name must be a string, not a number\nlines[0].qty must not be less than 1');
  });

  it('joins the messages of one field, each once, and names the root', () => {
    expect(formatIssues([{ path: 'city', constraints: { isString: 'city must be a string', isLength: 'city is too short', minLength: 'city is too short' } }])).toBe(
      'city must be a string; city is too short',
    );
    expect(formatIssues(issuesOf(Order, []))).toBe('the input must be a JSON object, not an array');
    expect(formatIssues([{ path: '', constraints: { custom: 'nothing fits' } }])).toBe('(input): nothing fits');
  });

  it('puts the path before a message that does not start with it', () => {
    expect(formatIssues([{ path: 'city', constraints: { isLength: 'too short' } }])).toBe('city: too short');
    expect(formatIssues([{ path: 'tags', constraints: { custom: 'tags[0] is odd' } }])).toBe('tags: tags[0] is odd');
    expect(formatIssues([{ path: 'a', constraints: { custom: 'amount is odd' } }])).toBe('a: amount is odd');
  });
});
