/**
 * The MCP SDK's runtime parts, imported when the first MCP server connects: the SDK and its
 * JSON-schema validator cost about 8 MB of heap and 27 MB of resident memory, which a bot
 * without MCP_CONFIG never needs. Types are imported statically where used (they cost nothing).
 */
const load = async () => {
  const [client, stdio, streamableHttp, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  };
};

export type McpSdk = Awaited<ReturnType<typeof load>>;

let loading: Promise<McpSdk> | undefined;

/** The SDK, imported once per process. */
export function loadMcpSdk(): Promise<McpSdk> {
  if (loading === undefined) {
    loading = load();
    // A failed import is retried by the next connection attempt, not cached.
    loading.catch(() => (loading = undefined));
  }
  return loading;
}
