import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the model reads from an MCP tool result: the text parts, a placeholder for media it
 * cannot receive through a text result, and the structured content when there is no text.
 */
export function mcpResultText(result: CallToolResult): string {
  const parts = result.content.map((item) => {
    switch (item.type) {
      case 'text':
        return item.text;
      case 'image':
        return `[image (${item.mimeType}) not shown]`;
      case 'audio':
        return `[audio (${item.mimeType}) not shown]`;
      case 'resource':
        return 'text' in item.resource ? item.resource.text : `[resource ${item.resource.uri}]`;
      case 'resource_link':
        return `[link: ${item.name} ${item.uri}]`;
      default:
        return '';
    }
  });
  const text = parts.filter((part) => part !== '').join('\n');
  if (text !== '') return text;
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return '(no output)';
}
