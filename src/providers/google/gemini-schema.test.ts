import { describe, expect, it } from 'vitest';
import { toGeminiSchema } from './gemini-schema.ts';

describe('toGeminiSchema', () => {
  it('turns a nullable type array into a type with nullable', () => {
    expect(toGeminiSchema({ type: ['integer', 'null'], minimum: 0 })).toEqual({
      type: 'INTEGER',
      nullable: true,
      minimum: 0,
    });
  });

  it('turns several non-null types into anyOf', () => {
    expect(toGeminiSchema({ type: ['string', 'number'] })).toEqual({
      anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }],
    });
  });

  it('inlines local $ref definitions, including the legacy `definitions` keyword', () => {
    const schema = {
      type: 'object',
      definitions: { point: { type: 'object', properties: { x: { type: 'number' } } } },
      properties: { at: { $ref: '#/definitions/point' } },
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: 'OBJECT',
      properties: { at: { type: 'OBJECT', properties: { x: { type: 'NUMBER' } } } },
    });
  });

  it('stops a recursive $ref instead of looping', () => {
    const schema = {
      type: 'object',
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
      properties: { root: { $ref: '#/$defs/node' } },
    };
    const converted = JSON.stringify(toGeminiSchema(schema));
    expect(converted.length).toBeLessThan(2_000);
    expect(converted).not.toContain('$ref');
  });

  it('merges allOf parts into one object', () => {
    const schema = {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'boolean' } }, required: ['b'] },
      ],
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: 'OBJECT',
      properties: { a: { type: 'STRING' }, b: { type: 'BOOLEAN' } },
      required: ['a', 'b'],
    });
  });

  it('keeps a description and adds non-string enum values to it', () => {
    expect(toGeminiSchema({ description: 'Stars.', enum: [1, 2.5] })).toEqual({
      type: 'NUMBER',
      description: 'Stars. Allowed values: 1, 2.5.',
    });
  });

  it('drops string formats Gemini rejects and keeps the ones it accepts', () => {
    expect(toGeminiSchema({ type: 'string', format: 'email' })).toEqual({ type: 'STRING' });
    expect(toGeminiSchema({ type: 'integer', format: 'int64' })).toEqual({
      type: 'INTEGER',
      format: 'int64',
    });
  });
});
