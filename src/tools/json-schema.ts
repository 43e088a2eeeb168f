import { z } from 'zod';
import type { JsonSchema } from '../core/chat.ts';
import { ToolError } from '../core/errors.ts';

/**
 * The JSON Schema (draft 2020-12) a model is shown for a tool's zod input schema. It describes
 * the input as the model must write it (`io: 'input'`); the vendor conversion happens in the
 * provider adapters.
 */
export function toolInputJsonSchema(schema: z.ZodType): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'throw',
  }) as Record<string, unknown>;
  const { $schema: _dialect, ...rest } = converted;
  if (rest.type !== 'object') {
    throw new ToolError('schema', 'a tool input schema must describe an object');
  }
  return rest as JsonSchema;
}
