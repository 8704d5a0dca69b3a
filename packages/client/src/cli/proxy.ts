/**
 * `hermes-mcp proxy`: served by @hermes-mcp/gateway, which depends on this package (and on
 * @hermes-mcp/core) — so this package cannot depend on it: it is loaded here, only for this verb,
 * from beside this CLI or from the working directory's project, and named in an install hint when
 * neither has it.
 */

/** The package that serves the verb (a variable: a name this package's manifest does not list, on purpose). */
const GATEWAY: string = '@hermes-mcp/gateway';

/** What the gateway package gives the CLI. */
interface Gateway {
  proxyMain(argv: string[]): Promise<number>;
}

/** `hermes-mcp proxy …` (argv after `proxy`): the gateway's own command line, or exit 1 saying how to install it. */
export async function proxy(argv: string[]): Promise<number> {
  let where: string;
  try {
    where = require.resolve(GATEWAY, { paths: [__dirname, process.cwd()] });
  } catch {
    process.stderr.write(
      `hermes-mcp: "proxy" is served by ${GATEWAY}, which is not installed here.\n` +
        `  npm install ${GATEWAY}          (in this project, beside @hermes-mcp/client)\n` +
        `  npm install -g ${GATEWAY}       (beside a global hermes-mcp)\n` +
        `  npx -p @hermes-mcp/client -p ${GATEWAY} hermes-mcp proxy …   (without installing)\n`,
    );
    return 1;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const gateway = require(where) as Gateway;
  return gateway.proxyMain(argv);
}
