/**
 * The identifiers and fixed values of the MCP extensions Hermes speaks besides tasks (whose id lives
 * with the revisions, `TASKS_EXTENSION`): Skills (SEP-2640, `io.modelcontextprotocol/skills`) and
 * MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`). Server and client read them from here, so the
 * two sides cannot disagree on a spelling.
 */

/** The Skills extension (SEP-2640), as declared in capabilities' `extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The MCP Apps extension (SEP-1865), as declared in capabilities' `extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an MCP App's UI resource (`ui://…`), on its list entry and its content. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * The flat tool `_meta` key that older hosts read the UI resource from: deprecated by the
 * extension, still written beside `_meta.ui.resourceUri` (as the official `registerAppTool` does)
 * so those hosts keep rendering.
 */
export const APP_RESOURCE_URI_META_KEY = 'ui/resourceUri';

/** The MIME type `resources/directory/read` gives a child that is a directory. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** The skill manifest's MIME type, on its `resources/list` entry and its content (SEP-2640 §Resource Metadata). */
export const SKILL_MD_MIME_TYPE = 'text/markdown';

/**
 * The extension's limits per skill: at most `files` resource entries (SKILL.md included) and `bytes`
 * as the sum of their sizes. Servers should stay within them; hosts must accept up to them.
 */
export const SKILL_LIMITS: Readonly<{ files: number; bytes: number }> = Object.freeze({ files: 512, bytes: 16_777_216 });

/** A skill resource's `digest`: `sha256:` and 64 lowercase hex digits, the SHA-256 of the raw bytes served. */
export const SKILL_DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** The Agent Skills name rule: lowercase letters, digits and single inner hyphens; its length (1–64) is checked apart. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The longest skill name, in characters. */
export const SKILL_NAME_MAX = 64;
