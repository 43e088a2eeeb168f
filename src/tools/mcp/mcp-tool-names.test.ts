import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN } from '../tool-definition.ts';
import { namespacedToolName } from './mcp-tool-names.ts';

describe('namespacedToolName', () => {
  it('prefixes the server name', () => {
    expect(namespacedToolName('search', 'web_search', new Set())).toBe('search__web_search');
  });

  it('always yields a name every vendor accepts, stable for the same tool', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (tool) => {
        const name = namespacedToolName('files', tool, new Set());
        expect(name).toMatch(TOOL_NAME_PATTERN);
        expect(name.startsWith('files__')).toBe(true);
        expect(namespacedToolName('files', tool, new Set())).toBe(name);
      }),
    );
  });

  it('keeps two tools apart when sanitizing would merge them', () => {
    const dotted = namespacedToolName('fs', 'read.file', new Set());
    const underscored = namespacedToolName('fs', 'read_file', new Set([dotted]));
    expect(dotted).not.toBe(underscored);
    expect(underscored).toBe('fs__read_file');
    const taken = namespacedToolName('fs', 'read_file', new Set(['fs__read_file']));
    expect(taken).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
  });
});
