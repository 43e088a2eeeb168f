import type { McpServerConfig } from './mcp/mcp-config.ts';
import type { McpServerState } from './mcp/mcp-server-connection.ts';
import type { McpToolSource } from './mcp/mcp-tool-source.ts';
import { mcpServerFlag, toolFlag } from './tool-availability.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** A built-in tool or MCP server a scope can switch on or off with `/config tools`. */
export interface ToolSwitch {
  kind: 'tool' | 'mcp';
  name: string;
  /** The feature flag in `ScopeSettings.featureFlags` that switches it. */
  flag: string;
  enabledByDefault: boolean;
}

/** What the tool layer tells the slash commands: switches, and MCP server states for `/doctor`. */
export interface ToolCatalog {
  switches(): readonly ToolSwitch[];
  mcpStates(): readonly McpServerState[];
}

/**
 * Built-in tools that share a flag are one switch (named by the flag); every operator MCP
 * server is one switch, whatever tools it lists right now.
 */
export function createToolCatalog(options: {
  registry: ToolRegistry;
  mcp: McpToolSource;
  mcpServers: readonly McpServerConfig[];
}): ToolCatalog {
  const byFlag = new Map<string, ToolSwitch>();
  for (const tool of options.registry.builtInTools()) {
    const flag = tool.availability.flag ?? toolFlag(tool.name);
    if (byFlag.has(flag)) continue;
    byFlag.set(flag, {
      kind: 'tool',
      name: flag.startsWith('tools.') ? flag.slice('tools.'.length) : tool.name,
      flag,
      enabledByDefault: tool.availability.enabledByDefault,
    });
  }
  const mcpSwitches = options.mcpServers.map<ToolSwitch>((server) => ({
    kind: 'mcp',
    name: server.name,
    flag: mcpServerFlag(server.name),
    enabledByDefault: server.enabledByDefault,
  }));
  const switches = [...byFlag.values(), ...mcpSwitches];
  return { switches: () => switches, mcpStates: () => options.mcp.states() };
}
