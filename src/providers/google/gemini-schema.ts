import { Type, type Schema } from '@google/genai';

/**
 * Converts a JSON Schema (what tools declare) into Gemini's Schema, an OpenAPI 3.0 subset.
 * Gemini rejects what it does not know (`additionalProperties`, `$schema`, `$ref`, `const`,
 * type arrays, number enums…), so this keeps what it understands and rewrites the rest:
 * local `$ref`s are inlined, `["string","null"]` becomes `nullable`, `const` a one-value enum,
 * `oneOf` an `anyOf`, and non-string enums move into the description.
 */
export function toGeminiSchema(schema: unknown): Schema {
  const root = asObject(schema);
  return convert(root, {
    definitions: { ...asObject(root['definitions']), ...asObject(root['$defs']) },
    depth: 0,
  });
}

type JsonObject = Record<string, unknown>;
interface Context {
  definitions: JsonObject;
  depth: number;
}

/** Deeper than any sane tool schema; stops recursive `$ref`s from looping. */
const MAX_DEPTH = 12;

const TYPES: Record<string, Type> = {
  string: Type.STRING,
  number: Type.NUMBER,
  integer: Type.INTEGER,
  boolean: Type.BOOLEAN,
  array: Type.ARRAY,
  object: Type.OBJECT,
  null: Type.NULL,
};

/** String formats Gemini accepts; any other makes the request fail. */
const STRING_FORMATS = new Set(['enum', 'date-time']);
const NUMBER_FORMATS = new Set(['int32', 'int64', 'float', 'double']);

function convert(schema: JsonObject, context: Context): Schema {
  if (context.depth > MAX_DEPTH) return { type: Type.OBJECT };
  const inner: Context = { ...context, depth: context.depth + 1 };
  const referenced = resolveReference(schema, context);
  if (referenced) return convert(referenced, inner);

  const result: Schema = {};
  const description = typeof schema['description'] === 'string' ? schema['description'] : undefined;
  if (typeof schema['title'] === 'string') result.title = schema['title'];

  applyType(result, schema, inner);
  applyEnum(result, schema, description);
  if (result.description === undefined && description !== undefined)
    result.description = description;

  const properties = asObject(schema['properties']);
  if (Object.keys(properties).length > 0) {
    result.properties = Object.fromEntries(
      Object.entries(properties).map(([name, value]) => [name, convert(asObject(value), inner)]),
    );
    const required = Array.isArray(schema['required']) ? schema['required'] : [];
    const known = required.filter(
      (name): name is string => typeof name === 'string' && name in properties,
    );
    if (known.length > 0) result.required = known;
  }
  const declaredItems: unknown = schema['items'];
  // A tuple (`items: [a, b]`) has no Gemini form; its first element is the closest.
  const items: unknown = Array.isArray(declaredItems) ? declaredItems[0] : declaredItems;
  if (items !== undefined) result.items = convert(asObject(items), inner);

  const alternatives = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(alternatives)) applyAlternatives(result, alternatives, inner);
  const all = schema['allOf'];
  if (Array.isArray(all)) Object.assign(result, { ...mergeAll(all, inner), ...result });

  copyLimits(result, schema);
  return result;
}

function applyType(result: Schema, schema: JsonObject, context: Context): void {
  const declared = schema['type'];
  const types = (Array.isArray(declared) ? declared : [declared]).filter(
    (type): type is string => typeof type === 'string',
  );
  const nonNull = types.filter((type) => type !== 'null');
  if (types.length > nonNull.length) result.nullable = true;
  if (nonNull.length === 1) {
    const type = TYPES[nonNull[0] ?? ''];
    if (type) result.type = type;
  } else if (nonNull.length > 1) {
    result.anyOf = nonNull.map((type) => convert({ ...schema, type }, context));
  }
  const format = typeof schema['format'] === 'string' ? schema['format'] : undefined;
  if (format === undefined) return;
  if (result.type === Type.STRING && STRING_FORMATS.has(format)) result.format = format;
  if ((result.type === Type.NUMBER || result.type === Type.INTEGER) && NUMBER_FORMATS.has(format)) {
    result.format = format;
  }
}

function applyEnum(result: Schema, schema: JsonObject, description: string | undefined): void {
  const values = 'const' in schema ? [schema['const']] : schema['enum'];
  if (!Array.isArray(values) || values.length === 0) return;
  if (values.every((value) => typeof value === 'string')) {
    result.enum = values;
    result.type ??= Type.STRING;
    return;
  }
  // Gemini enums are strings only; the model still learns the allowed values from the text.
  if (result.type === undefined && values.every((value) => typeof value === 'number')) {
    result.type = values.every((value) => Number.isInteger(value)) ? Type.INTEGER : Type.NUMBER;
  }
  const allowed = `Allowed values: ${values.map((value) => JSON.stringify(value)).join(', ')}.`;
  result.description = description === undefined ? allowed : `${description} ${allowed}`;
}

function applyAlternatives(result: Schema, alternatives: unknown[], context: Context): void {
  const objects = alternatives.map(asObject);
  const nonNull = objects.filter((alternative) => alternative['type'] !== 'null');
  if (nonNull.length < objects.length) result.nullable = true;
  if (nonNull.length === 1)
    Object.assign(result, { ...convert(nonNull[0] ?? {}, context), ...result });
  else if (nonNull.length > 1)
    result.anyOf = nonNull.map((alternative) => convert(alternative, context));
}

function mergeAll(parts: unknown[], context: Context): Schema {
  const merged: Schema = {};
  for (const part of parts.map((value) => convert(asObject(value), context))) {
    const properties = { ...merged.properties, ...part.properties };
    const required = [...(merged.required ?? []), ...(part.required ?? [])];
    Object.assign(merged, part);
    if (Object.keys(properties).length > 0) merged.properties = properties;
    if (required.length > 0) merged.required = required;
  }
  return merged;
}

function copyLimits(result: Schema, schema: JsonObject): void {
  for (const key of ['minimum', 'maximum'] as const) {
    if (typeof schema[key] === 'number') result[key] = schema[key];
  }
  // Gemini declares these int64 counts as strings.
  for (const key of [
    'minItems',
    'maxItems',
    'minLength',
    'maxLength',
    'minProperties',
    'maxProperties',
  ] as const) {
    if (typeof schema[key] === 'number') result[key] = String(schema[key]);
  }
  if (typeof schema['pattern'] === 'string') result.pattern = schema['pattern'];
  if ('default' in schema) result.default = schema['default'];
}

function resolveReference(schema: JsonObject, context: Context): JsonObject | undefined {
  const reference = schema['$ref'];
  if (typeof reference !== 'string') return undefined;
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(reference)?.[1];
  const target = name === undefined ? undefined : context.definitions[decodeURIComponent(name)];
  // An unresolvable reference still has to be valid: an open object is the honest fallback.
  return target === undefined ? { type: 'object' } : asObject(target);
}

function asObject(value: unknown): JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : {};
}
