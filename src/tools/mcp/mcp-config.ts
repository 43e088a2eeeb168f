import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';

/**
 * The operator's MCP servers, from the JSON file named by MCP_CONFIG, in the common
 * `{"mcpServers": {...}}` shape: `command`/`args`/`env`/`cwd` start a stdio server, `url`/
 * `headers` reach a Streamable HTTP server. `${NAME}` in args, env, url and headers is taken
 * from the bot's environment, so secrets need not live in the file. Guild members never
 * configure servers, and nothing is installed at run time: package runners (npx, uvx, …) are
 * refused.
 */

interface CommonServerConfig {
  name: string;
  /** Whether scopes that never set `mcp.<name>` get its tools (default false). */
  enabledByDefault: boolean;
  /** Per-call timeout of its tools; the registry's default when undefined. */
  timeoutMs: number | undefined;
  /**
   * Every value filled in from `${NAME}`: tokens live there, so the logger scrubs them and the
   * server's stderr is redacted of them.
   */
  secrets?: readonly string[];
}

export interface StdioServerConfig extends CommonServerConfig {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
}

export interface HttpServerConfig extends CommonServerConfig {
  transport: 'http';
  url: URL;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export type Environment = Readonly<Record<string, string | undefined>>;

/** Shorter values are too likely to be ordinary words or numbers (as in config.secretValues). */
const MIN_SECRET_LENGTH = 6;

/** Server names become tool-name prefixes (`<server>__<tool>`), so they are short and plain. */
const SERVER_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]|_(?!_)){0,29}$/;
/** Commands that download and run a package on the spot: whatever is published then would run. */
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx']);
const RUNNER_SUBCOMMANDS = new Set(['exec', 'dlx', 'x']);

const common = {
  disabled: z.boolean().optional(),
  enabledByDefault: z.boolean().optional(),
  timeoutMs: z.number().int().min(1_000).max(600_000).optional(),
};
const stdioSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().trim().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...common,
});
const httpSchema = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional(),
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).optional(),
  ...common,
});
const fileSchema = z.strictObject({ mcpServers: z.record(z.string(), z.unknown()) });

/** Reads and validates the file; every problem is reported, naming the server and the key. */
export function loadMcpConfig(file: string, environment: Environment): McpServerConfig[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`MCP_CONFIG: cannot read ${file} (${(error as Error).message})`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`MCP_CONFIG: ${file} is not valid JSON (${(error as Error).message})`]);
  }
  return parseMcpConfig(json, { environment, baseDirectory: path.dirname(file) });
}

export function parseMcpConfig(
  json: unknown,
  options: { environment: Environment; baseDirectory: string },
): McpServerConfig[] {
  const file = fileSchema.safeParse(json);
  if (!file.success) throw new ConfigError(describeIssues(file.error, []));
  const problems: string[] = [];
  const servers: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(file.data.mcpServers)) {
    const server = parseServer({ name, entry }, { ...options, problems });
    if (server !== undefined) servers.push(server);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return servers;
}

/** One server entry being read: where it is in the file, and where its findings go. */
interface ServerEntry {
  name: string;
  /** The entry as the file has it. */
  entry: unknown;
  at: string[];
  baseDirectory: string;
  /** Fills in `${NAME}` (see expander); `key` names the value in a problem. */
  expand: (value: string, key: string) => string;
  secrets: string[];
  problems: string[];
}

/**
 * One entry of `mcpServers`, as a stdio or an HTTP server. Undefined when it is disabled or
 * wrong; what is wrong is added to `problems`, so one run reports every bad entry.
 */
function parseServer(
  { name, entry }: { name: string; entry: unknown },
  options: { environment: Environment; baseDirectory: string; problems: string[] },
): McpServerConfig | undefined {
  const { problems } = options;
  const at = ['mcpServers', name];
  if (!SERVER_NAME.test(name)) {
    problems.push(
      `MCP_CONFIG ${at.join('.')}: a server name is 1–30 letters, digits, "-" or "_" (no "__")`,
    );
    return undefined;
  }
  const isHttp = typeof entry === 'object' && entry !== null && 'url' in entry;
  const isStdio = typeof entry === 'object' && entry !== null && 'command' in entry;
  if (isHttp === isStdio) {
    problems.push(
      `MCP_CONFIG ${at.join('.')}: give either "command" (a stdio server) or "url" (a Streamable HTTP server)`,
    );
    return undefined;
  }
  const secrets: string[] = [];
  const expand = expander({ environment: options.environment, at, problems, secrets });
  const { baseDirectory } = options;
  const server = { name, entry, at, baseDirectory, expand, secrets, problems };
  return isHttp ? parseHttpServer(server) : parseStdioServer(server);
}

/** The entry as `schema` reads it; undefined when it is disabled, or wrong (then reported). */
function enabledEntry<T extends { disabled?: boolean | undefined }>(
  schema: z.ZodType<T>,
  server: ServerEntry,
): T | undefined {
  const parsed = schema.safeParse(server.entry);
  if (!parsed.success) {
    server.problems.push(...describeIssues(parsed.error, server.at));
    return undefined;
  }
  return parsed.data.disabled === true ? undefined : parsed.data;
}

function parseHttpServer(server: ServerEntry): HttpServerConfig | undefined {
  const { at, expand, problems } = server;
  const parsed = enabledEntry(httpSchema, server);
  if (parsed === undefined) return undefined;
  const url = parseHttpUrl(expand(parsed.url, 'url'));
  if (url === undefined) {
    problems.push(`MCP_CONFIG ${at.join('.')}.url: must be an http:// or https:// URL`);
    return undefined;
  }
  return {
    name: server.name,
    transport: 'http',
    url,
    headers: mapValues(parsed.headers ?? {}, (value, key) => expand(value, `headers.${key}`)),
    enabledByDefault: parsed.enabledByDefault ?? false,
    timeoutMs: parsed.timeoutMs,
    secrets: server.secrets,
  };
}

function parseStdioServer(server: ServerEntry): StdioServerConfig | undefined {
  const { at, expand, problems } = server;
  const parsed = enabledEntry(stdioSchema, server);
  if (parsed === undefined) return undefined;
  const args = (parsed.args ?? []).map((arg, index) => expand(arg, `args.${index}`));
  const runner = packageRunner(parsed.command, args);
  if (runner !== undefined) {
    problems.push(
      `MCP_CONFIG ${at.join('.')}.command: "${runner}" downloads and runs packages at run time; install the server ahead of time and run it directly (e.g. "command": "node", "args": ["/opt/mcp/server/index.js"])`,
    );
    return undefined;
  }
  return {
    name: server.name,
    transport: 'stdio',
    command: parsed.command,
    args,
    env: mapValues(parsed.env ?? {}, (value, key) => expand(value, `env.${key}`)),
    cwd: parsed.cwd === undefined ? undefined : path.resolve(server.baseDirectory, parsed.cwd),
    enabledByDefault: parsed.enabledByDefault ?? false,
    timeoutMs: parsed.timeoutMs,
    secrets: server.secrets,
  };
}

/** The values the logger must scrub: everything filled from `${NAME}`, long enough to match. */
export function mcpSecretValues(servers: readonly McpServerConfig[]): string[] {
  const values = servers.flatMap((server) => server.secrets ?? []);
  return [...new Set(values)].filter((value) => value.length >= MIN_SECRET_LENGTH);
}

/**
 * Replaces `${NAME}` with the environment's value (remembered in `secrets`); a missing one is
 * a problem, not "".
 */
function expander(options: {
  environment: Environment;
  at: string[];
  problems: string[];
  secrets: string[];
}) {
  return (value: string, key: string): string =>
    value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
      const replacement = options.environment[variable];
      if (replacement === undefined) {
        options.problems.push(
          `MCP_CONFIG ${[...options.at, key].join('.')}: the environment variable ${variable} is not set`,
        );
        return '';
      }
      options.secrets.push(replacement);
      return replacement;
    });
}

function packageRunner(command: string, args: readonly string[]): string | undefined {
  const executable = path
    .basename(command)
    .replace(/\.(cmd|exe)$/i, '')
    .toLowerCase();
  if (PACKAGE_RUNNERS.has(executable)) return executable;
  const subcommand = args[0]?.toLowerCase();
  if (['npm', 'pnpm', 'yarn', 'bun'].includes(executable) && subcommand !== undefined) {
    if (RUNNER_SUBCOMMANDS.has(subcommand)) return `${executable} ${subcommand}`;
  }
  if (executable === 'uv' && args[0] === 'tool' && args[1] === 'run') return 'uv tool run';
  return undefined;
}

function parseHttpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function describeIssues(error: z.ZodError, at: readonly string[]): string[] {
  return error.issues.map((issue) => {
    const location = [...at, ...issue.path.map(String)].join('.');
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
        : issue.message;
    return `MCP_CONFIG ${location === '' ? '(file)' : location}: ${message}`;
  });
}

function mapValues(
  record: Record<string, string>,
  map: (value: string, key: string) => string,
): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value, key)]));
}
