/** Interactions end to end with discord.js: modals, autocomplete, components, deadlines, tokens. */
import {
  ActionRowBuilder,
  ModalBuilder,
  PermissionFlagsBits,
  Routes,
  SlashCommandBuilder,
  StringSelectMenuBuilder,
  TextInputBuilder,
  TextInputStyle,
  type Client,
  type Interaction,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/core/clock.ts';
import { connectClient, nextEvent } from './discord-js-harness.ts';
import { FakeDiscordUsageError, startFakeDiscord, type FakeDiscord } from './fake-discord.ts';

/** Real time plus jumps, so deadlines can pass without a test waiting for them. */
let clockOffset = 0;
const clock: Clock = { now: () => Date.now() + clockOffset, sleep: systemClock.sleep };

let discord: FakeDiscord;
let client: Client<true>;
let guildId: string;
let channelId: string;
let alice: string;

beforeAll(async () => {
  discord = await startFakeDiscord({ clock, rateLimitTimeScale: 0.01 });
  guildId = discord.createGuild().id;
  channelId = discord.createChannel({ guildId, name: 'general' }).id;
  alice = discord.createUser({ username: 'alice' }).id;
  discord.addMember({ guildId, userId: alice });
  client = await connectClient(discord);
  await client.application.commands.set(
    [
      new SlashCommandBuilder().setName('persona').setDescription('Set the persona'),
      new SlashCommandBuilder()
        .setName('model')
        .setDescription('Pick a model')
        .addStringOption((option) =>
          option.setName('name').setDescription('Model').setAutocomplete(true).setRequired(true),
        ),
      new SlashCommandBuilder()
        .setName('config')
        .setDescription('Configure')
        .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
        .addSubcommand((sub) =>
          sub
            .setName('limits')
            .setDescription('Limits')
            .addUserOption((option) =>
              option.setName('member').setDescription('Who').setRequired(true),
            )
            .addIntegerOption((option) => option.setName('per_minute').setDescription('How many'))
            .addAttachmentOption((option) => option.setName('file').setDescription('A file')),
        ),
      new SlashCommandBuilder().setName('ping').setDescription('Ping'),
    ].map((command) => command.toJSON()),
    guildId,
  );
});

afterAll(async () => {
  await client.destroy();
  await discord.close();
});

function nextInteraction(accept: (interaction: Interaction) => boolean): Promise<Interaction> {
  return nextEvent(client, 'interactionCreate', accept).then(([interaction]) => interaction);
}

describe('interactions', () => {
  it('opens a modal, lets the user submit it, and shows the ephemeral answer to that user only', async () => {
    const command = nextInteraction((interaction) => interaction.isChatInputCommand());
    const invocation = discord.invokeSlashCommand({ userId: alice, channelId, command: 'persona' });
    const interaction = await command;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    const input = new TextInputBuilder()
      .setCustomId('instructions')
      .setLabel('Instructions')
      .setStyle(TextInputStyle.Paragraph);
    await interaction.showModal(
      new ModalBuilder()
        .setCustomId('persona-modal')
        .setTitle('Persona')
        .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(input)),
    );
    expect(invocation.modal()).toMatchObject({ custom_id: 'persona-modal', title: 'Persona' });
    const submitted = nextInteraction((next) => next.isModalSubmit());
    const submission = invocation.submitModal({ instructions: 'Be kind.' });
    const modal = await submitted;
    if (!modal.isModalSubmit()) throw new Error('expected a modal submit');
    expect(modal.fields.getTextInputValue('instructions')).toBe('Be kind.');
    await modal.reply({ content: 'Persona saved.', flags: 'Ephemeral' });
    expect((await submission.waitForOriginal()).content).toBe('Persona saved.');
    expect(
      discord.readChannel(channelId, { as: alice }).map((message) => message.content),
    ).toContain('Persona saved.');
    expect(discord.readChannel(channelId).map((message) => message.content)).not.toContain(
      'Persona saved.',
    );
  });

  it('asks for autocomplete choices and records them', async () => {
    const asked = nextInteraction((interaction) => interaction.isAutocomplete());
    const typing = discord.interactions.autocomplete({
      userId: alice,
      channelId,
      command: 'model',
      options: { name: 'gpt' },
      focused: 'name',
    });
    const interaction = await asked;
    if (!interaction.isAutocomplete()) throw new Error('expected autocomplete');
    expect(interaction.options.getFocused(true)).toMatchObject({ name: 'name', value: 'gpt' });
    await interaction.respond([{ name: 'gpt-4.1', value: 'gpt-4.1' }]);
    expect((await typing.response()).type).toBe(8);
    expect(typing.choices()).toEqual([{ name: 'gpt-4.1', value: 'gpt-4.1' }]);
  });

  it('delivers subcommands with resolved members and attachments, hidden from members lacking the default permission', async () => {
    expect(() =>
      discord.invokeSlashCommand({
        userId: alice,
        channelId,
        command: 'config',
        subcommand: 'limits',
        options: { member: alice },
      }),
    ).toThrow(FakeDiscordUsageError);
    expect(() => discord.invokeSlashCommand({ userId: alice, channelId, command: 'nope' })).toThrow(
      /not registered/,
    );
    const received = nextInteraction(
      (interaction) => interaction.isChatInputCommand() && interaction.commandName === 'config',
    );
    discord.invokeSlashCommand({
      userId: alice,
      channelId,
      command: 'config',
      subcommand: 'limits',
      options: {
        member: alice,
        per_minute: 5,
        file: { filename: 'notes.txt', contentType: 'text/plain', data: 'hello' },
      },
      bypassDefaultMemberPermissions: true,
    });
    const interaction = await received;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    expect(interaction.options.getSubcommand()).toBe('limits');
    expect(interaction.options.getMember('member')).toMatchObject({ id: alice });
    expect(interaction.options.getInteger('per_minute')).toBe(5);
    expect(interaction.memberPermissions?.has('ManageGuild')).toBe(false);
    const file = interaction.options.getAttachment('file');
    expect(await (await fetch(file?.url ?? '')).text()).toBe('hello');
    await interaction.reply({ content: 'ok', flags: 'Ephemeral' });
  });

  it('refuses a first response after the 3 s deadline with 10062', async () => {
    const received = nextInteraction(
      (interaction) => interaction.isChatInputCommand() && interaction.commandName === 'ping',
    );
    discord.invokeSlashCommand({ userId: alice, channelId, command: 'ping' });
    const interaction = await received;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    clockOffset += 3_001;
    await expect(interaction.deferReply()).rejects.toMatchObject({ status: 404, code: 10062 });
  });

  it('answers a second callback with 40060, and with_response with the callback resource', async () => {
    const received = nextInteraction(
      (interaction) => interaction.isChatInputCommand() && interaction.commandName === 'ping',
    );
    const invocation = discord.invokeSlashCommand({ userId: alice, channelId, command: 'ping' });
    const interaction = await received;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    const response = await interaction.deferReply({ withResponse: true });
    expect(response.interaction.responseMessageLoading).toBe(true);
    expect(response.interaction.responseMessageId).toBe(invocation.original()?.id);
    const again = client.rest.post(Routes.interactionCallback(interaction.id, interaction.token), {
      body: { type: 4, data: { content: 'x' } },
      auth: false,
    });
    await expect(again).rejects.toMatchObject({ status: 400, code: 40060 });
  });

  it('turns a follow-up sent while still "thinking" into the edit of the loading message', async () => {
    const received = nextInteraction(
      (interaction) => interaction.isChatInputCommand() && interaction.commandName === 'ping',
    );
    const invocation = discord.invokeSlashCommand({ userId: alice, channelId, command: 'ping' });
    const interaction = await received;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    await interaction.deferReply();
    await interaction.followUp({ content: 'pong', allowedMentions: { parse: [] } });
    expect(invocation.original()).toMatchObject({ content: 'pong', flags: 0 });
    expect(invocation.followUps()).toEqual([]);
    await interaction.followUp({ content: 'and another', allowedMentions: { parse: [] } });
    expect(invocation.followUps().map((message) => message.content)).toEqual(['and another']);
  });

  it('delivers a select menu choice; a deferred update then edits the message it sits on', async () => {
    const channel = await client.channels.fetch(channelId);
    if (channel === null || !channel.isSendable()) throw new Error('expected a text channel');
    const menu = new StringSelectMenuBuilder()
      .setCustomId('mode')
      .addOptions({ label: 'Edit', value: 'edit' }, { label: 'Messages', value: 'messages' });
    const message = await channel.send({
      content: 'Delivery mode?',
      components: [new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(menu)],
    });
    const chosen = nextInteraction((interaction) => interaction.isStringSelectMenu());
    const choice = discord.interactions.chooseFromSelect({
      userId: alice,
      messageId: message.id,
      customId: 'mode',
      values: ['edit'],
    });
    const interaction = await chosen;
    if (!interaction.isStringSelectMenu()) throw new Error('expected a select menu');
    expect(interaction.values).toEqual(['edit']);
    await interaction.deferUpdate();
    await interaction.editReply({ content: 'Delivery: edit', components: [] });
    expect((await choice.response()).type).toBe(6);
    expect(discord.message(message.id)).toMatchObject({
      content: 'Delivery: edit',
      components: [],
    });
  });

  it('expires the interaction token after 15 minutes (50027)', async () => {
    const received = nextInteraction(
      (interaction) => interaction.isChatInputCommand() && interaction.commandName === 'ping',
    );
    discord.invokeSlashCommand({ userId: alice, channelId, command: 'ping' });
    const interaction = await received;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    await interaction.deferReply();
    clockOffset += 15 * 60_000 + 1;
    await expect(interaction.editReply('too late')).rejects.toMatchObject({
      status: 401,
      code: 50027,
    });
  });
});
