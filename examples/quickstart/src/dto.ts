import { ArrayMaxSize, IsArray, IsIn, IsInt, IsNumber, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { Description } from '@hermes-mcp/core';

/** Input of `add_note`. */
export class AddNoteInput {
  @Description('A short title')
  @IsString()
  @Length(1, 80)
  title!: string;

  @Description('The text of the note (Markdown)')
  @IsString()
  @Length(0, 10_000)
  body!: string;

  @Description('Lower-case tags')
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @Matches(/^[a-z0-9-]+$/, { each: true })
  tags?: string[];
}

/** Input of `search_notes`. */
export class SearchInput {
  @Description('Words to look for in titles, bodies and tags')
  @IsString()
  @Length(1, 200)
  query!: string;

  @Description('How many notes at most (default 10)')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}

/** Input of `add`. */
export class AddInput {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

/** Output of `add`. */
export class SumOutput {
  @IsNumber() sum!: number;
}

/** Variables of the `notes://note/{id}` template. */
export class NoteParams {
  @Matches(/^\d+$/, { message: 'id must be a number' })
  id!: string;
}

/** Arguments of the `summarize` prompt (prompt arguments arrive as strings). */
export class SummarizeArgs {
  @Description('Only notes about this topic')
  @IsOptional()
  @IsString()
  topic?: string;

  @Description('brief or detailed')
  @IsOptional()
  @IsIn(['brief', 'detailed'])
  style?: 'brief' | 'detailed';
}
