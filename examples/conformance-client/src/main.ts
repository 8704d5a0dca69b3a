/**
 * The conformance suite's client: `conformance client --command "node dist/main.js"` starts a mock
 * server per scenario and runs this program with the server's URL as its last argument, the
 * scenario in `MCP_CONFORMANCE_SCENARIO`, the revision to speak in
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and scenario data in `MCP_CONFORMANCE_CONTEXT`. It does what
 * each scenario expects of a client with @hermes-mcp/client, and exits 0 (1 with the error on
 * stderr when something failed).
 */
import { ElicitationAnswer, ElicitationRequest, McpClient, OAuthClient, OAuthClientOptions, SkillVerificationError, StreamableHttpClientTransport } from '@hermes-mcp/client';

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const protocolVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;

/** Accepts an elicitation with the defaults its schema gives (SEP-1034). */
function acceptDefaults(request: ElicitationRequest): ElicitationAnswer {
  const content: Record<string, unknown> = {};
  const properties = (request.requestedSchema?.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [name, property] of Object.entries(properties)) if (property.default !== undefined) content[name] = property.default;
  return { action: 'accept', content };
}

/** Where the suite's authorization server sends the user back (never served: the code is read from the redirect). */
const REDIRECT_URI = 'http://localhost:3000/callback';
/** The Client ID Metadata Document URL the suite's CIMD scenarios expect. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * The sign-in of the auth/* scenarios: the suite's authorization server approves at once, so the
 * authorization URL answers with a redirect to the redirect URI, code and all.
 */
function oauthFor(name: string): OAuthClient | undefined {
  if (!name.startsWith('auth/')) return undefined;
  const options: OAuthClientOptions = {
    redirectUri: REDIRECT_URI,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientMetadata: { client_name: 'hermes-conformance-client' },
    authorize: async (authorizationUrl) => {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
      return new URL(location, authorizationUrl);
    },
  };
  if (typeof context.client_id === 'string') {
    options.clientId = context.client_id;
    if (typeof context.client_secret === 'string') options.clientSecret = context.client_secret;
  }
  if (name === 'auth/client-credentials-basic' || name === 'auth/client-credentials-jwt') options.grant = 'client_credentials';
  // Enterprise-managed authorization: the IdP's ID token exchanged there (its token endpoint
  // discovered from its issuer) for an ID-JAG, presented with the client's id and secret.
  if (name === 'auth/enterprise-managed-authorization') {
    options.grant = 'jwt_bearer';
    options.crossAppAccess = { idpUrl: context.idp_issuer as string, clientId: context.idp_client_id as string, idToken: context.idp_id_token as string };
  }
  // Workload identity federation: the workload's JWT as the grant, with no secret.
  if (name === 'auth/wif-jwt-bearer') {
    options.grant = 'jwt_bearer';
    options.assertion = context.valid_jwt as string;
  }
  if (typeof context.private_key_pem === 'string') {
    options.privateKey = { pem: context.private_key_pem, algorithm: (context.signing_algorithm as 'ES256' | undefined) ?? 'ES256' };
  }
  return new OAuthClient(options);
}

async function main(): Promise<void> {
  const client = new McpClient(new StreamableHttpClientTransport({ url, auth: oauthFor(scenario) }), {
    protocolVersion: (protocolVersion as never) ?? 'auto',
    clientInfo: { name: 'hermes-conformance-client', version: '0.1.0' },
    onElicitation: acceptDefaults,
    onSampling: () => ({ role: 'assistant', content: { type: 'text', text: 'a sampled answer' }, model: 'conformance-model', stopReason: 'endTurn' }),
    onRoots: () => [{ uri: 'file:///conformance', name: 'conformance' }],
    logger: { error: (message, error) => process.stderr.write(`${message}: ${JSON.stringify(error)}\n`) },
  });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.close();
  }
}

async function run(client: McpClient): Promise<void> {
  // A server that declares no tools (request-metadata's) is not asked for them.
  const tools = client.serverCapabilities.tools ? await client.listAllTools() : [];
  switch (scenario) {
    case 'json-schema-ref-no-deref':
      return;
    case 'json-schema-2020-12-preservation': {
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      if (!focal) throw new Error('json_schema_2020_12_tool is not listed');
      await client.callTool('json_schema_echo', { schema: focal.inputSchema });
      return;
    }
    case 'http-custom-headers': {
      for (const call of (context.toolCalls ?? []) as Array<{ name: string; arguments: Record<string, unknown> }>) await client.callTool(call.name, call.arguments);
      return;
    }
    case 'http-invalid-tool-headers':
    case 'sep-2322-client-request-state':
      // Every tool the client kept, one after the other (their input rounds answered by the client).
      for (const tool of tools) await client.callTool(tool.name, {});
      return;
    case 'http-standard-headers': {
      if (tools[0]) await client.callTool(tools[0].name, {});
      if (client.serverCapabilities.resources) {
        const resources = await client.listResources();
        if (resources.items[0]) await client.readResource(resources.items[0].uri);
      }
      if (client.serverCapabilities.prompts) {
        const prompts = await client.listPrompts();
        if (prompts.items[0]) await client.getPrompt(prompts.items[0].name);
      }
      return;
    }
    case 'sep-2640-client-no-prefetch':
      // A host lists skills and reads none of their files until one is loaded (SEP-2640).
      await client.listAllSkills();
      return;
    case 'sep-2640-client-verify-digest':
    case 'sep-2640-client-verify-size':
    case 'sep-2640-client-verify-frontmatter':
      // Load each skill (SKILL.md read and verified), then read its files: a skill that fails
      // verification is not loaded, so nothing more of it is read.
      for (const skill of await client.listAllSkills()) {
        try {
          const loaded = await client.loadSkill(skill);
          for (const file of loaded.files) await loaded.read(file);
        } catch (error) {
          if (!(error instanceof SkillVerificationError)) throw error;
          process.stderr.write(`skill refused (${error.reason}): ${error.message}\n`);
        }
      }
      return;
    default:
      // The auth/* scenarios: signed in (by the transport's OAuthClient), list the tools and call one.
      if (scenario.startsWith('auth/')) {
        if (tools[0]) await client.callTool(tools[0].name, {});
        return;
      }
      // initialize, tools_call and the like: call the first tool with the suite's usual arguments.
      if (tools[0]) await client.callTool(tools[0].name, { a: 2, b: 3 });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`conformance client (${scenario}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
