import { InteractionResponseType, InteractionType } from 'discord-api-types/v10';
import { DiscordApiError, FIELD_ERRORS, type FormProblem } from '../rules/discord-error.ts';
import type { InteractionRecord } from './interaction-records.ts';

const MAX_AUTOCOMPLETE_CHOICES = 25;

/** Which callback types Discord accepts for which interaction types. */
function allowedResponses(record: InteractionRecord): InteractionResponseType[] {
  const message = [
    InteractionResponseType.ChannelMessageWithSource,
    InteractionResponseType.DeferredChannelMessageWithSource,
  ];
  const update = [
    InteractionResponseType.DeferredMessageUpdate,
    InteractionResponseType.UpdateMessage,
  ];
  switch (record.type) {
    case InteractionType.Ping:
      return [InteractionResponseType.Pong];
    case InteractionType.ApplicationCommand:
      return [...message, InteractionResponseType.Modal];
    case InteractionType.MessageComponent:
      return [...message, ...update, InteractionResponseType.Modal];
    case InteractionType.ApplicationCommandAutocomplete:
      return [InteractionResponseType.ApplicationCommandAutocompleteResult];
    case InteractionType.ModalSubmit:
      // Updating a message is possible only when the modal was opened from a component.
      return record.sourceMessageId === null ? message : [...message, ...update];
  }
}

/** Rejects callbacks Discord would reject (wrong type for the interaction, bad modal or choices). */
export function validateCallbackData(
  record: InteractionRecord,
  type: InteractionResponseType,
  data: Record<string, unknown> | undefined,
): void {
  if (!allowedResponses(record).includes(type)) {
    throw DiscordApiError.invalidFormBody([
      {
        path: ['type'],
        error: {
          code: 'INTERACTION_RESPONSE_TYPE_INVALID',
          message: 'Interaction response type is not valid for this interaction',
        },
      },
    ]);
  }
  const problems: FormProblem[] = [];
  if (type === InteractionResponseType.ApplicationCommandAutocompleteResult) {
    const choices = data?.choices;
    if (!Array.isArray(choices)) {
      problems.push({ path: ['data', 'choices'], error: FIELD_ERRORS.required() });
    } else {
      if (choices.length > MAX_AUTOCOMPLETE_CHOICES) {
        problems.push({
          path: ['data', 'choices'],
          error: FIELD_ERRORS.maxLength(MAX_AUTOCOMPLETE_CHOICES),
        });
      }
      choices.forEach((choice: { name?: unknown }, index) => {
        const name = choice.name;
        if (typeof name !== 'string' || name.length < 1 || name.length > 100) {
          problems.push({
            path: ['data', 'choices', index, 'name'],
            error: FIELD_ERRORS.badLength(1, 100),
          });
        }
      });
    }
  }
  if (type === InteractionResponseType.Modal) {
    const customId = data?.custom_id;
    const title = data?.title;
    const components = data?.components;
    if (typeof customId !== 'string' || customId.length < 1 || customId.length > 100) {
      problems.push({ path: ['data', 'custom_id'], error: FIELD_ERRORS.badLength(1, 100) });
    }
    if (typeof title !== 'string' || title.length < 1 || title.length > 45) {
      problems.push({ path: ['data', 'title'], error: FIELD_ERRORS.badLength(1, 45) });
    }
    if (!Array.isArray(components) || components.length < 1 || components.length > 5) {
      problems.push({ path: ['data', 'components'], error: FIELD_ERRORS.badLength(1, 5) });
    }
  }
  if (problems.length > 0) throw DiscordApiError.invalidFormBody(problems);
}
