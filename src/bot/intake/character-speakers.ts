import type { REST } from 'discord.js';
import type { Character } from '../../core/character.ts';
import type { Clock } from '../../core/clock.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { CharacterMessages } from '../cast/character-messages.ts';
import type { ChannelWebhooks } from '../delivery/channel-webhooks.ts';
import type { CharacterVoice } from '../delivery/character-voice.ts';
import type { MessageTarget } from '../delivery/message-target.ts';
import { NamedMessageTarget } from '../delivery/named-message-target.ts';
import { WebhookMessageTarget } from '../delivery/webhook-message-target.ts';
import { resolveLocale } from '../i18n/locale.ts';
import type { SceneCourse, TurnFacts, TurnPlace } from './accepted-message.ts';

/**
 * Gives a turn to a character: its facts (the scope's settings with the character's persona,
 * model and voice over them) and its target — the channel's webhook under its name and avatar,
 * or, where no webhook can post (a DM), the bot itself with the character's name shown.
 */
export class CharacterSpeakers {
  readonly #rest: REST;
  readonly #clock: Clock;
  readonly #webhooks: ChannelWebhooks;
  readonly #messages: CharacterMessages;

  constructor(options: {
    rest: REST;
    clock: Clock;
    webhooks: ChannelWebhooks;
    messages: CharacterMessages;
  }) {
    this.#rest = options.rest;
    this.#clock = options.clock;
    this.#webhooks = options.webhooks;
    this.#messages = options.messages;
  }

  /**
   * The facts of `character`'s turn in the place of `base` (the bot's facts, or another's),
   * answering the member message `triggerMessageId`.
   */
  factsFor(
    base: TurnFacts,
    character: Character,
    scene: SceneCourse,
    triggerMessageId: string,
  ): TurnFacts {
    const { speaker: _previous, ...bot } = base;
    const settings = inCharacter(base.settings, character);
    return {
      ...bot,
      settings,
      locale: resolveLocale(settings.language, base.place.guildLocale),
      speaker: { character, target: this.targetFor(base.place, character, triggerMessageId) },
      scene,
    };
  }

  /**
   * Where `character`'s messages go in `place`: the channel's webhook under its name and avatar,
   * else the bot headed by its name. Either way every message it posts is remembered as the
   * character's (a reply to it addresses the character), with the member message it answers
   * (`triggerMessageId`; none for a scene's greeting).
   */
  targetFor(place: TurnPlace, character: Character, triggerMessageId?: string): MessageTarget {
    const voice: CharacterVoice = {
      characterId: character.id,
      name: character.name,
      avatarUrl: character.avatarUrl,
    };
    const remember = (messageId: string) =>
      this.#messages.remember({
        messageId,
        channelId: place.channelId,
        characterId: character.id,
        triggerMessageId,
      });
    const named = new NamedMessageTarget(place.target, voice, { onPosted: remember });
    if (place.webhookChannelId === undefined) return named;
    return new WebhookMessageTarget({
      rest: this.#rest,
      webhookRest: this.#webhooks.webhookRest,
      clock: this.#clock,
      webhooks: this.#webhooks,
      voice,
      channelId: place.channelId,
      webhookChannelId: place.webhookChannelId,
      fallback: named,
      onPosted: remember,
    });
  }
}

/** The scope's settings as a character speaks: its persona, and its own model and voice if set. */
export function inCharacter(settings: ScopeSettings, character: Character): ScopeSettings {
  const ownProvider = character.provider !== undefined && character.provider !== settings.provider;
  return {
    ...settings,
    personaName: character.name,
    personaInstructions: character.persona,
    provider: character.provider ?? settings.provider,
    // A model names one vendor's: the server's model does not follow the character elsewhere.
    model: character.model ?? (ownProvider ? undefined : settings.model),
    temperature: character.temperature ?? settings.temperature,
    humanizerDegree: character.humanizerDegree ?? settings.humanizerDegree,
    language: character.language ?? settings.language,
  };
}
