/**
 * The WebSocket limit: Fastify with `@fastify/websocket` at /mcp/ws (subprotocol `mcp`), one
 * answer frame per request frame — it parses each frame and answers what the MCP servers answer
 * (`initialize`, `add`), with no MCP machinery.
 */
import Fastify from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import { EchoMessage, echoAnswer } from './echo-answer';
import { announce, fail, tieToRunner } from './lifeline';

async function main(): Promise<void> {
  tieToRunner();
  const app = Fastify({ logger: false });
  await app.register(fastifyWebsocket, { options: { handleProtocols: (protocols: Set<string>) => (protocols.has('mcp') ? 'mcp' : false) } });
  app.get('/mcp/ws', { websocket: true }, (socket) => {
    socket.on('message', (data) => {
      const reply = echoAnswer(JSON.parse(data.toString()) as EchoMessage);
      if (reply !== undefined) socket.send(reply);
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce(app.server.address());
}

main().catch(fail);
