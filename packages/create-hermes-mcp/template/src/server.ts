import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsDefined, IsIn, IsOptional, IsString, Length, ValidateNested } from 'class-validator';
import { Service } from 'typedi';
import { McpContext, McpServer, Prompt, Resource, Tool, ToolError } from '@hermes-mcp/core';

/** Who to greet: a nested object in the tool's input. */
export class Person {
  @IsString() @Length(1, 60) name!: string;
  @IsOptional() @IsIn(['en', 'fr', 'es']) language?: 'en' | 'fr' | 'es';
}

/** Input of `greet`: validated before the tool runs; the tool's JSON Schema comes from these decorators. */
export class GreetInput {
  @IsDefined()
  @ValidateNested()
  @Type(() => Person)
  person!: Person;
}

/** Input of `greet_all`. */
export class GreetAllInput {
  @ValidateNested({ each: true })
  @Type(() => Person)
  @ArrayMaxSize(20)
  people!: Person[];
}

/** Arguments of the `introduce` prompt (prompt arguments are strings). */
export class IntroduceArgs {
  @IsString() @Length(1, 60) name!: string;
}

/** A service the server gets through its constructor (typedi). */
@Service()
export class Greetings {
  private readonly words = { en: 'Hello', fr: 'Bonjour', es: 'Hola' } as const;
  private count = 0;

  greet(person: Person): string {
    this.count++;
    return `${this.words[person.language ?? 'en']}, ${person.name}!`;
  }

  get greeted(): number {
    return this.count;
  }
}

@McpServer({ name: '{{name}}', version: '0.1.0', instructions: 'Greets people. Use greet for one person, greet_all for several.' })
export class GreeterServer {
  constructor(private readonly greetings: Greetings) {}

  @Tool({ description: 'Greet one person', input: GreetInput, annotations: { readOnlyHint: true } })
  async greet(input: GreetInput, ctx: McpContext) {
    await ctx.progress(1, 1, `greeting ${input.person.name}`);
    return this.greetings.greet(input.person);
  }

  @Tool({ name: 'greet_all', description: 'Greet several people at once', input: GreetAllInput })
  greetAll(input: GreetAllInput) {
    if (input.people.length === 0) throw new ToolError('nobody to greet: give at least one person');
    return input.people.map((person) => this.greetings.greet(person)).join('\n');
  }

  @Resource({ uri: 'greeter://stats', mimeType: 'application/json', description: 'How many people were greeted' })
  stats() {
    return { greeted: this.greetings.greeted };
  }

  @Prompt({ description: 'Ask the model to introduce someone', args: IntroduceArgs })
  introduce(args: IntroduceArgs) {
    return `Write a two-sentence introduction of ${args.name}.`;
  }
}
