/** A small server whose tool does some traced work of its own. */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { trace } from '@opentelemetry/api';
import { McpContext, McpServer, Tool } from '@hermes-mcp/core';

/** Where to tell the weather of. */
export class CityInput {
  @IsString() city!: string;
}

/** Tells the weather. */
@McpServer({ name: 'weather', version: '1.0.0' })
export class WeatherServer {
  /** Looks the weather up (a span of its own, a child of the server's `tools/call` span). */
  @Tool({ description: 'Tells the weather of a city' })
  async forecast(input: CityInput, ctx: McpContext): Promise<string> {
    // ctx.log lines carry trace_id and span_id.
    ctx.log.info({ city: input.city }, 'forecast asked');
    return trace.getTracer('weather').startActiveSpan('look up the forecast', async (span) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      span.end();
      return `Sunny in ${input.city}`;
    });
  }
}
