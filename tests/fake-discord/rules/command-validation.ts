import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  Locale,
} from 'discord-api-types/v10';
import { FIELD_ERRORS, type FormProblem } from './discord-error.ts';

/** Discord's documented name rule for slash commands and their options. */
const CHAT_INPUT_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const LOCALES = new Set<string>(Object.values(Locale));
const MAX_OPTIONS = 25;
const MAX_CHOICES = 25;

type Path = (string | number)[];

interface RawCommand {
  name?: unknown;
  type?: ApplicationCommandType | ApplicationCommandOptionType;
  description?: unknown;
  options?: unknown;
  name_localizations?: unknown;
  description_localizations?: unknown;
  choices?: unknown;
  required?: unknown;
}

/**
 * Validates application command definitions as Discord does on registration: names (lowercase
 * where a lowercase form exists), descriptions, localization keys and lengths, option counts,
 * choices, required-before-optional, and duplicate names within one registration.
 */
export function validateCommands(commands: readonly unknown[]): FormProblem[] {
  const problems: FormProblem[] = [];
  const seen = new Set<string>();
  commands.forEach((raw, index) => {
    const command = (raw ?? {}) as RawCommand;
    const type = typeof command.type === 'number' ? command.type : ApplicationCommandType.ChatInput;
    const key = `${type}:${String(command.name)}`;
    if (seen.has(key)) {
      problems.push({
        path: [index, 'name'],
        error: {
          code: 'APPLICATION_COMMANDS_DUPLICATE_NAME',
          message: `Application command names must be unique`,
        },
      });
    }
    seen.add(key);
    problems.push(...validateEntry(command, [index], type === ApplicationCommandType.ChatInput));
  });
  return problems;
}

function validateEntry(entry: RawCommand, path: Path, chatInput: boolean): FormProblem[] {
  const problems: FormProblem[] = [];
  problems.push(...validateName(entry.name, [...path, 'name'], chatInput));
  if (chatInput) problems.push(...validateDescription(entry.description, [...path, 'description']));
  problems.push(
    ...validateLocalizations(entry.name_localizations, [...path, 'name_localizations'], 32),
  );
  problems.push(
    ...validateLocalizations(
      entry.description_localizations,
      [...path, 'description_localizations'],
      100,
    ),
  );
  if (entry.options === undefined || entry.options === null) return problems;
  if (!Array.isArray(entry.options)) {
    return [...problems, { path: [...path, 'options'], error: FIELD_ERRORS.wrongType('array') }];
  }
  const options = entry.options as RawCommand[];
  if (options.length > MAX_OPTIONS) {
    problems.push({ path: [...path, 'options'], error: FIELD_ERRORS.maxLength(MAX_OPTIONS) });
  }
  let optionalSeen = false;
  options.forEach((option, index) => {
    const optionPath = [...path, 'options', index];
    const nested =
      option.type === ApplicationCommandOptionType.Subcommand ||
      option.type === ApplicationCommandOptionType.SubcommandGroup;
    if (!nested) {
      if (option.required === true && optionalSeen) {
        problems.push({
          path: optionPath,
          error: {
            code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
            message: 'Required options must be placed before non-required options',
          },
        });
      }
      if (option.required !== true) optionalSeen = true;
    }
    problems.push(...validateEntry(option, optionPath, true));
    if (Array.isArray(option.choices) && option.choices.length > MAX_CHOICES) {
      problems.push({
        path: [...optionPath, 'choices'],
        error: FIELD_ERRORS.maxLength(MAX_CHOICES),
      });
    }
  });
  return problems;
}

function validateName(name: unknown, path: Path, chatInput: boolean): FormProblem[] {
  if (typeof name !== 'string' || name.length === 0)
    return [{ path, error: FIELD_ERRORS.required() }];
  if (name.length > 32) return [{ path, error: FIELD_ERRORS.badLength(1, 32) }];
  if (!chatInput) return [];
  if (!CHAT_INPUT_NAME.test(name) || name !== name.toLowerCase()) {
    return [
      {
        path,
        error: { code: 'APPLICATION_COMMAND_INVALID_NAME', message: `Command name is invalid` },
      },
    ];
  }
  return [];
}

function validateDescription(description: unknown, path: Path): FormProblem[] {
  if (typeof description !== 'string' || description.length < 1 || description.length > 100) {
    return [{ path, error: FIELD_ERRORS.badLength(1, 100) }];
  }
  return [];
}

function validateLocalizations(value: unknown, path: Path, maximum: number): FormProblem[] {
  if (value === undefined || value === null) return [];
  const problems: FormProblem[] = [];
  for (const [locale, text] of Object.entries(value as Record<string, unknown>)) {
    if (!LOCALES.has(locale)) {
      problems.push({
        path: [...path, locale],
        error: { code: 'LOCALE_INVALID', message: `Invalid locale: ${locale}` },
      });
    } else if (typeof text !== 'string' || text.length < 1 || text.length > maximum) {
      problems.push({ path: [...path, locale], error: FIELD_ERRORS.badLength(1, maximum) });
    }
  }
  return problems;
}
