/**
 * Tool declarations as each vendor receives them, for representative schemas. Snapshots make a
 * change in what a vendor sees a reviewed diff.
 */
import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../src/core/chat.ts';
import { toAnthropicTools } from '../../src/providers/anthropic/anthropic-request.ts';
import { toGeminiTools } from '../../src/providers/google/gemini-request.ts';
import { toOpenAITools } from '../../src/providers/openai/openai-request.ts';

/** A typical built-in tool: flat, strict, with enums and bounds (as zod's JSON Schema emits). */
const setReminder: ToolSpec = {
  name: 'set_reminder',
  description: 'Remind the member about something later.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 200, description: 'What to remind about' },
      inMinutes: { type: 'integer', minimum: 1, maximum: 10080 },
      repeat: { type: 'string', enum: ['never', 'daily', 'weekly'], default: 'never' },
      channel: { type: ['string', 'null'], description: 'Channel id, or null for a DM' },
    },
    required: ['text', 'inMinutes'],
    additionalProperties: false,
  },
};

/** An MCP-server style schema: nested objects, $defs/$ref, anyOf, const, formats, tuples. */
const searchIssues: ToolSpec = {
  name: 'search_issues',
  description: 'Search the tracker.',
  inputSchema: {
    type: 'object',
    $defs: {
      label: {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
        additionalProperties: false,
      },
    },
    properties: {
      query: { type: 'string', format: 'uri-reference', examples: ['is:open'] },
      state: { const: 'open' },
      priority: { enum: [1, 2, 3] },
      since: { type: 'string', format: 'date-time' },
      labels: { type: 'array', items: { $ref: '#/$defs/label' }, maxItems: 5 },
      assignee: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      range: { type: 'array', items: [{ type: 'number' }, { type: 'number' }] },
      options: {
        type: 'object',
        properties: { limit: { type: 'integer', exclusiveMinimum: 0 } },
        additionalProperties: { type: 'string' },
      },
    },
    required: ['query', 'missing'],
  },
};

/** A tool without parameters. */
const listReminders: ToolSpec = {
  name: 'list_reminders',
  description: 'List the member’s reminders.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
};

const tools = [setReminder, searchIssues, listReminders];

describe('tool declarations sent to each vendor', () => {
  it('OpenAI receives the JSON Schema as function parameters, unchanged', () => {
    const converted = toOpenAITools(tools);
    expect(
      converted.map((tool) => (tool.type === 'function' ? tool.function.parameters : undefined)),
    ).toEqual(tools.map((tool) => tool.inputSchema));
    expect(converted).toMatchSnapshot();
  });

  it('Anthropic receives the JSON Schema as input_schema, unchanged', () => {
    const converted = toAnthropicTools(tools);
    expect(converted.map((tool) => tool.input_schema)).toEqual(
      tools.map((tool) => tool.inputSchema),
    );
    expect(converted).toMatchSnapshot();
  });

  it('Gemini receives its schema subset, with every unsupported keyword rewritten or removed', () => {
    const converted = toGeminiTools(tools);
    const serialized = JSON.stringify(converted);
    for (const keyword of [
      'additionalProperties',
      '$schema',
      '$ref',
      '$defs',
      'const',
      'examples',
      'exclusiveMinimum',
    ]) {
      expect(serialized).not.toContain(`"${keyword}"`);
    }
    expect(serialized).not.toContain('uri-reference');
    expect(converted[2]).toEqual({
      name: 'list_reminders',
      description: 'List the member’s reminders.',
    });
    expect(converted).toMatchSnapshot();
  });
});
