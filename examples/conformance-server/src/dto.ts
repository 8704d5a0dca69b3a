import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Min } from 'class-validator';
import { Complete, Description, EnumTitles, McpHeader } from '@hermes-mcp/core';

/** Input of `test_sampling`. */
export class SamplingInput {
  @Description('The prompt to send to the LLM') @IsString() prompt!: string;
}

/** Input of `test_elicitation`. */
export class ElicitationInput {
  @Description('The message to show the user') @IsString() message!: string;
}

/** The form `test_elicitation` asks for. */
export class UserInfoForm {
  @Description("User's response") @IsString() username!: string;
  @Description("User's email address") @IsString() email!: string;
}

/** SEP-1034: one field of each primitive type, each with a default (from its initialiser). */
export class DefaultsForm {
  @Description('User name') @IsString() name: string = 'John Doe';
  @Description('User age') @IsInt() age: number = 30;
  @Description('User score') @IsNumber() score: number = 95.5;
  @Description('User status') @IsIn(['active', 'inactive', 'pending']) status: string = 'active';
  @Description('Verification status') @IsBoolean() verified: boolean = true;
}

/** SEP-1330: the five ways to offer a choice of strings. */
export class EnumsForm {
  @Description('Select one option')
  @IsOptional()
  @IsIn(['option1', 'option2', 'option3'])
  untitledSingle?: string;

  @Description('Select one option with titles')
  @IsOptional()
  @EnumTitles({ value1: 'First Option', value2: 'Second Option', value3: 'Third Option' })
  @IsIn(['value1', 'value2', 'value3'])
  titledSingle?: string;

  @Description('Select one option (legacy)')
  @IsOptional()
  @EnumTitles({ opt1: 'Option One', opt2: 'Option Two', opt3: 'Option Three' }, { legacy: true })
  @IsIn(['opt1', 'opt2', 'opt3'])
  legacyEnum?: string;

  @Description('Select multiple options')
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @IsIn(['option1', 'option2', 'option3'], { each: true })
  untitledMulti?: string[];

  @Description('Select multiple options with titles')
  @IsOptional()
  @EnumTitles({ value1: 'First Choice', value2: 'Second Choice', value3: 'Third Choice' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @IsIn(['value1', 'value2', 'value3'], { each: true })
  titledMulti?: string[];
}

/** Variables of `test://template/{id}/data`. */
export class TemplateParams {
  @IsString() id!: string;
}

/** Suggestions for the arguments of `test_prompt_with_arguments` (`completion/complete`), by prefix. */
const SAMPLES = ['alpha', 'beta', 'gamma'];
const samples = (value: string) => SAMPLES.filter((sample) => sample.startsWith(value));

/** Arguments of `test_prompt_with_arguments`; both complete (the server then declares `completions`). */
export class PromptArgs {
  @Description('First test argument') @Complete(samples) @IsString() arg1!: string;
  @Description('Second test argument') @Complete(samples) @IsString() arg2!: string;
}

/** Arguments of `test_prompt_with_embedded_resource`. */
export class EmbeddedResourceArgs {
  @Description('URI of the resource to embed') @IsString() resourceUri!: string;
}

/** The form of `test_input_required_result_elicitation` and the first step of the multi-round tool. */
export class NameForm {
  @Description('Your name') @IsString() name!: string;
}

/** The second step of `test_input_required_result_multi_round`. */
export class ColorForm {
  @Description('Your favourite colour') @IsString() color!: string;
}

/** The confirmation `test_input_required_result_request_state` asks for. */
export class ConfirmForm {
  @Description('Go ahead?') @IsBoolean() ok!: boolean;
}

/** The question of the prompt `test_input_required_result_prompt`. */
export class ContextForm {
  @Description('What the prompt should be about') @IsString() context!: string;
}

/** Input of `test_x_mcp_header`: `region` is mirrored in the `Mcp-Param-Region` header (MCP 2026-07-28). */
export class RegionInput {
  @McpHeader('Region') @Description('Where to run; sent as the Mcp-Param-Region header too') @IsString() region!: string;
}

/** Input of `greet` (tasks scenarios, sync only). */
export class GreetInput {
  @Description('Who to greet') @IsString() name!: string;
}

/** Input of `slow_compute`: how long to work, and a label for the result. */
export class SlowComputeInput {
  @Description('How long to work, in seconds') @IsNumber() @Min(0) seconds!: number;
  @Description('A label echoed in the result') @IsOptional() @IsString() label?: string;
}

/** Input of `confirm_delete`. */
export class ConfirmDeleteInput {
  @Description('The file to delete') @IsString() filename!: string;
}

/** The confirmation `confirm_delete` and `multi_input` ask for. */
export class DeleteConfirmForm {
  @Description('Delete it?') @IsBoolean() confirm!: boolean;
}
