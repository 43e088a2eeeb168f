import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { JsonSchema } from '../../core/chat.ts';
import type { Clock, RandomSource } from '../../core/clock.ts';
import { ToolError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { mcpServerFlag } from '../tool-availability.ts';
import type { ToolDefinition } from '../tool-definition.ts';
import type { ToolSource } from '../tool-registry.ts';
import type { McpServerConfig } from './mcp-config.ts';
import {
  McpServerConnection,
  type McpBackoff,
  type McpServerState,
} from './mcp-server-connection.ts';
import { namespacedToolName } from './mcp-tool-names.ts';

const MAX_DESCRIPTION_CHARS = 1_024;

/**
 * The operator's MCP servers as one tool source of the registry. Their tools appear as
 * `<server>__<tool>`, switched per scope by the flag `mcp.<server>` (off unless the server is
 * `enabledByDefault`), and disappear while their server restarts.
 */
export class McpToolSource implements ToolSource {
  readonly #connections: McpServerConnection[];
  readonly #configs = new Map<string, McpServerConfig>();
  readonly #logger: Logger;
  #definitions: ToolDefinition[] = [];
  /** Registry name → server, kept after a server drops so its tools can say why they are gone. */
  readonly #knownNames = new Map<string, string>();

  constructor(options: {
    servers: readonly McpServerConfig[];
    clock: Clock;
    logger: Logger;
    random?: RandomSource | undefined;
    backoff?: Partial<McpBackoff> | undefined;
  }) {
    this.#logger = options.logger;
    this.#connections = options.servers.map((config) => {
      this.#configs.set(config.name, config);
      return new McpServerConnection({
        config,
        clock: options.clock,
        logger: options.logger,
        random: options.random,
        backoff: options.backoff,
        onToolsChanged: () => this.#rebuild(),
      });
    });
  }

  /** Connects every server in parallel; resolves once each has had a first attempt. */
  async start(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.start()));
    for (const state of this.states()) {
      if (state.status !== 'ready') {
        this.#logger.warn(
          { mcpServer: state.name, error: state.lastError },
          'MCP server unavailable at start-up; retrying in the background',
        );
      }
    }
  }

  tools(): readonly ToolDefinition[] {
    return this.#definitions;
  }

  unavailableReason(toolName: string): string | undefined {
    const server = this.#knownNames.get(toolName) ?? this.#serverByPrefix(toolName);
    const connection = this.#connections.find((candidate) => candidate.name === server);
    if (connection === undefined) return undefined;
    return connection.state().status === 'ready'
      ? `The MCP server "${connection.name}" no longer offers the tool "${toolName}".`
      : connection.unavailableText();
  }

  /** Every server's state, for /doctor and start-up logs. */
  states(): McpServerState[] {
    return this.#connections.map((connection) => connection.state());
  }

  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.close()));
  }

  #serverByPrefix(toolName: string): string | undefined {
    const separator = toolName.indexOf('__');
    return separator > 0 ? toolName.slice(0, separator) : undefined;
  }

  #rebuild(): void {
    const definitions: ToolDefinition[] = [];
    const taken = new Set<string>();
    for (const connection of this.#connections) {
      const config = this.#configs.get(connection.name);
      if (config === undefined) continue;
      for (const tool of connection.tools) {
        const name = namespacedToolName(connection.name, tool.name, taken);
        taken.add(name);
        this.#knownNames.set(name, connection.name);
        definitions.push(definitionOf({ connection, config, tool, name }));
      }
    }
    this.#definitions = definitions;
  }
}

function definitionOf(options: {
  connection: McpServerConnection;
  config: McpServerConfig;
  tool: Tool;
  name: string;
}): ToolDefinition {
  const { connection, config, tool } = options;
  const jsonSchema = toolSchema(tool);
  return {
    name: options.name,
    description: (tool.description ?? tool.title ?? tool.name).slice(0, MAX_DESCRIPTION_CHARS),
    input: inputValidator(jsonSchema),
    jsonSchema,
    availability: { flag: mcpServerFlag(config.name), enabledByDefault: config.enabledByDefault },
    timeoutMs: config.timeoutMs,
    async execute(input, { signal }) {
      const result = await connection.callTool(tool.name, input as Record<string, unknown>, signal);
      // An isError result is the tool's own answer: the model reads it as a failed call.
      if (result.isError) throw new ToolError('mcp_tool_error', result.text);
      return result.text;
    },
  };
}

/** The server's input schema as the model sees it: always an object schema. */
function toolSchema(tool: Tool): JsonSchema {
  const { $schema: _dialect, ...schema } = tool.inputSchema as Record<string, unknown>;
  return { ...schema, type: 'object', properties: schema.properties ?? {} };
}

/**
 * Validates arguments locally with the server's own schema, so a bad call is answered without
 * a round trip; a schema zod cannot read falls back to "any object" (the server validates).
 */
function inputValidator(schema: JsonSchema): z.ZodType<Record<string, unknown>> {
  try {
    return z.fromJSONSchema(schema) as z.ZodType<Record<string, unknown>>;
  } catch {
    return z.record(z.string(), z.unknown());
  }
}
