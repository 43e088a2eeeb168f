import {
  MessageFlags,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type RepliableInteraction,
} from 'discord.js';

/** No command reply ever pings anyone: names in settings or memories are only text. */
export const NO_MENTIONS = { parse: [] as [], repliedUser: false } as const;

export type CommandReply = Pick<
  InteractionReplyOptions,
  'content' | 'embeds' | 'files' | 'components'
>;

/**
 * Answers an interaction whatever state it is in (fresh, deferred or answered), with explicit
 * allowed_mentions. Ephemeral by default: configuration and diagnostics are for the invoker.
 */
export async function respond(
  interaction: RepliableInteraction,
  reply: CommandReply | string,
  options: { ephemeral?: boolean } = {},
): Promise<void> {
  const body = typeof reply === 'string' ? { content: reply } : reply;
  const ephemeral = options.ephemeral ?? true;
  if (interaction.deferred && !interaction.replied) {
    await interaction.editReply({
      ...(body as InteractionEditReplyOptions),
      allowedMentions: NO_MENTIONS,
    });
    return;
  }
  if (interaction.replied) {
    await interaction.followUp({
      ...body,
      allowedMentions: NO_MENTIONS,
      ...(ephemeral ? { flags: MessageFlags.Ephemeral } : {}),
    });
    return;
  }
  await interaction.reply({
    ...body,
    allowedMentions: NO_MENTIONS,
    ...(ephemeral ? { flags: MessageFlags.Ephemeral } : {}),
  });
}

/** Defers (the 3 s deadline) before slow work: a database write, a provider call, a fetch. */
export async function deferIfSlow(
  interaction: RepliableInteraction,
  options: { ephemeral?: boolean } = {},
): Promise<void> {
  if (interaction.deferred || interaction.replied) return;
  await interaction.deferReply(
    (options.ephemeral ?? true) ? { flags: MessageFlags.Ephemeral } : {},
  );
}
