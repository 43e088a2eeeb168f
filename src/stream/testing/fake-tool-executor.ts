import type { ToolSpec } from '../../core/chat.ts';
import type { ToolCall, ToolContext, ToolExecutor, ToolResult } from '../../core/tool.ts';

export type ToolHandler = (input: unknown, signal: AbortSignal) => Promise<ToolResult>;

/** A ToolExecutor with scripted tools; records every call and the signal it was given. */
export class FakeToolExecutor implements ToolExecutor {
  readonly calls: Array<{ call: ToolCall; context: ToolContext; signal: AbortSignal }> = [];
  private readonly handlers: Record<string, ToolHandler>;

  constructor(handlers: Record<string, ToolHandler>) {
    this.handlers = handlers;
  }

  specs(): ToolSpec[] {
    return Object.keys(this.handlers).map((name) => ({
      name,
      description: `the ${name} tool`,
      inputSchema: { type: 'object' },
    }));
  }

  execute(call: ToolCall, context: ToolContext, signal: AbortSignal): Promise<ToolResult> {
    this.calls.push({ call, context, signal });
    const handler = this.handlers[call.name];
    if (handler === undefined)
      return Promise.resolve({ ok: false, error: `unknown tool ${call.name}` });
    return handler(call.input, signal);
  }
}
