/** The server process: telemetry first, then the server on stdio. */
import 'reflect-metadata';
import { startTelemetry } from './telemetry';
import { McpFactory } from '@hermes-mcp/core';
import { WeatherServer } from './weather.server';

const telemetry = startTelemetry('weather-server');
const app = McpFactory.create(WeatherServer);
void app.listen();
// Flush the last spans when the client closes stdin and the process is asked to end.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void telemetry.shutdown().finally(() => process.exit(0)));
process.stdin.once('end', () => void telemetry.shutdown());
