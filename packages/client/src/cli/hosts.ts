/**
 * The MCP hosts `hermes-mcp install` writes to: one table of where each keeps its servers and in
 * what shape, read by install.ts (the only code that edits a file). A host that documents no file
 * for an OS has none here: the user names one with `--config`.
 */
import { homedir } from 'node:os';
import * as path from 'node:path';

/** What a host's config path depends on: the OS, the home folder and the environment. */
export interface HostPlatform {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** A host: its name as shown, where its files are, and how a server entry is kept in them. */
export interface Host {
  /** The host's name as its makers write it, for messages. */
  title: string;
  /** The object of the file that maps server names to entries. */
  key: 'mcpServers' | 'servers';
  /** Whether the host reads comments and trailing commas in the file (else it is plain JSON). */
  jsonc: boolean;
  /** Whether an entry says `"type": "stdio"` (the host requires it, or writes it itself). */
  typed: boolean;
  /** The user's file on this platform; undefined where the host documents none. */
  user(where: HostPlatform): string | undefined;
  /** The project's file, relative to the project folder; undefined where there is none. */
  project?: string;
}

/** `%APPDATA%` on Windows (its documented fallback when unset). */
function appData({ home, env }: HostPlatform): string {
  return env.APPDATA ?? path.win32.join(home, 'AppData', 'Roaming');
}

/** The paths of a platform: Windows paths are built with win32 separators even when tested elsewhere. */
function join(where: HostPlatform, ...parts: string[]): string {
  return (where.platform === 'win32' ? path.win32 : path.posix).join(...parts);
}

/** Every host, by the name given on the command line. */
export const HOSTS: Readonly<Record<string, Host>> = {
  // https://modelcontextprotocol.io/docs/develop/connect-local-servers — macOS and Windows only (no
  // Linux build, so no documented file there).
  'claude-desktop': {
    title: 'Claude Desktop',
    key: 'mcpServers',
    jsonc: false,
    typed: false,
    user: (where) =>
      where.platform === 'darwin'
        ? join(where, where.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
        : where.platform === 'win32'
          ? join(where, appData(where), 'Claude', 'claude_desktop_config.json')
          : undefined,
  },
  // https://code.claude.com/docs/en/mcp — user scope: ~/.claude.json's mcpServers; project scope:
  // .mcp.json at the project's root; `claude mcp add` writes "type": "stdio".
  'claude-code': {
    title: 'Claude Code',
    key: 'mcpServers',
    jsonc: false,
    typed: true,
    user: (where) => join(where, where.home, '.claude.json'),
    project: '.mcp.json',
  },
  // https://cursor.com/docs/mcp — global ~/.cursor/mcp.json, project .cursor/mcp.json.
  cursor: {
    title: 'Cursor',
    key: 'mcpServers',
    jsonc: false,
    typed: false,
    user: (where) => join(where, where.home, '.cursor', 'mcp.json'),
    project: '.cursor/mcp.json',
  },
  // https://code.visualstudio.com/docs/copilot/reference/mcp-configuration — "servers", "type"
  // required, JSON with comments; the user profile's mcp.json lives in the User folder of
  // https://code.visualstudio.com/docs/configure/settings#_settings-file-locations.
  vscode: {
    title: 'VS Code',
    key: 'servers',
    jsonc: true,
    typed: true,
    user: (where) =>
      where.platform === 'darwin'
        ? join(where, where.home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json')
        : where.platform === 'win32'
          ? join(where, appData(where), 'Code', 'User', 'mcp.json')
          : join(where, where.env.XDG_CONFIG_HOME || join(where, where.home, '.config'), 'Code', 'User', 'mcp.json'),
    project: '.vscode/mcp.json',
  },
  // https://geminicli.com/docs/tools/mcp-server/ and https://geminicli.com/docs/cli/configuration —
  // ~/.gemini/settings.json, project .gemini/settings.json; read with its comments stripped.
  gemini: {
    title: 'Gemini CLI',
    key: 'mcpServers',
    jsonc: true,
    typed: false,
    user: (where) => join(where, where.home, '.gemini', 'settings.json'),
    project: '.gemini/settings.json',
  },
};

/** This process's platform, home folder and environment. */
export function currentPlatform(): HostPlatform {
  return { platform: process.platform, home: homedir(), env: process.env };
}
