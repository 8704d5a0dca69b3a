import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, Min, IsNumber } from 'class-validator';
import { Complete, Description, EnumTitles } from '@hermes-mcp/core';

/** Input of `echo`. */
export class EchoInput {
  @Description('Text to send back') @IsString() message!: string;
}

/** Input of `slow`. */
export class SlowInput {
  @Description('How many steps (one progress notification each)') @IsInt() @Min(1) @Max(50) steps!: number;
  @Description('Milliseconds per step') @IsInt() @Min(1) @Max(2000) delayMs!: number;
  @Description('A label reported back, to tell concurrent calls apart') @IsOptional() @IsString() label?: string;
}

/** Input of `log`. */
export class LogInput {
  @Description('A word every log message carries') @IsString() tag!: string;
}

/** The form of `ask_name`. */
export class NameForm {
  @Description('Your name') @IsString() @Length(1, 40) name!: string;
  @Description('Your age') @IsOptional() @IsInt() @Min(0) @Max(150) age?: number;
  @Description('Favourite colour') @EnumTitles({ red: 'Red', green: 'Green', blue: 'Blue' }) @IsIn(['red', 'green', 'blue']) color: string = 'blue';
  @Description('Subscribe to news') @IsBoolean() subscribe: boolean = false;
}

/** Input of `open_url`. */
export class UrlInput {
  @IsString() url!: string;
}

/** Input of `summarize`. */
export class SummarizeInput {
  @IsString() @Length(1, 10_000) text!: string;
  @IsOptional() @IsBoolean() withTools?: boolean;
}

/** Input of `toggle`. */
export class ToggleInput {
  @IsIn(['tool', 'prompt', 'resource']) kind!: 'tool' | 'prompt' | 'resource';
  @IsString() key!: string;
  @IsBoolean() enabled!: boolean;
}

/** Input of `add_tool`. */
export class AddToolInput {
  @IsString() @Length(1, 64) name!: string;
}

/** Input of `touch`. */
export class TouchInput {
  @IsString() uri!: string;
}

/** Input of `guarded`. */
export class GuardedInput {
  @IsString() token!: string;
}

/** Input of `weather`. */
export class WeatherInput {
  @IsString() @Length(2, 40) city!: string;
}

/** Output of `weather` (structured content, validated). */
export class WeatherOutput {
  @IsString() city!: string;
  @IsNumber() temperature!: number;
  @IsIn(['sunny', 'rainy', 'cloudy']) conditions!: string;
}

/** Variables of `items://item/{id}`. */
export class ItemParams {
  @Complete((value) => Array.from({ length: 25 }, (_, i) => String(i + 1)).filter((id) => id.startsWith(value)))
  @IsString()
  id!: string;
}

/** Arguments of the `greet` prompt. */
export class GreetArgs {
  @Description('Who to greet') @IsString() @Length(1, 40) name!: string;
  @Description('formal or casual') @IsOptional() @IsIn(['formal', 'casual']) style?: string;
}

/** Arguments of the `code_review` prompt. */
export class ReviewArgs {
  @Description('The code to review') @IsString() code!: string;
}
