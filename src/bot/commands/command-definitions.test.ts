import type {
  APIApplicationCommandOption,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createCommands } from './command-list.ts';

/** Discord's rule for command and option names (lowercase where the script has case). */
const NAME_PATTERN = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
/** Discord rejects a command whose names, descriptions and choices exceed this in total. */
const MAX_COMMAND_CHARACTERS = 8_000;

type Node = RESTPostAPIChatInputApplicationCommandsJSONBody | APIApplicationCommandOption;

function* walk(node: Node, path: string): Generator<{ node: Node; path: string }> {
  yield { node, path };
  const options = 'options' in node ? (node.options ?? []) : [];
  for (const option of options) yield* walk(option, `${path} ${option.name}`);
}

describe('slash command definitions', () => {
  const definitions = createCommands().map((command) => command.definition);

  it('have unique, valid names', () => {
    const names = definitions.map((definition) => definition.name);
    expect(new Set(names).size).toBe(names.length);
    for (const definition of definitions) {
      for (const { node, path } of walk(definition, definition.name)) {
        expect(node.name, path).toMatch(NAME_PATTERN);
        expect(node.name, path).toBe(node.name.toLowerCase());
      }
    }
  });

  it('carry a Japanese localization for every description and choice', () => {
    for (const definition of definitions) {
      for (const { node, path } of walk(definition, definition.name)) {
        expect(node.description.length, path).toBeGreaterThan(0);
        expect(node.description.length, path).toBeLessThanOrEqual(100);
        const japanese = node.description_localizations?.ja;
        expect(japanese, `${path}: ja description`).toBeTruthy();
        expect(japanese?.length ?? 0, path).toBeLessThanOrEqual(100);
        const choices = 'choices' in node ? (node.choices ?? []) : [];
        for (const choice of choices) {
          expect(choice.name_localizations?.ja, `${path} choice ${choice.name}`).toBeTruthy();
        }
      }
    }
  });

  it('fit within Discord’s size limit per command', () => {
    for (const definition of definitions) {
      let characters = 0;
      for (const { node } of walk(definition, definition.name)) {
        characters += node.name.length + node.description.length;
        const choices = 'choices' in node ? (node.choices ?? []) : [];
        for (const choice of choices)
          characters += choice.name.length + String(choice.value).length;
      }
      expect(characters, definition.name).toBeLessThanOrEqual(MAX_COMMAND_CHARACTERS);
    }
  });
});
