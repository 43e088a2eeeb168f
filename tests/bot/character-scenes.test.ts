/**
 * A cast of characters end to end: the real bot process against the loopback Discord and the
 * LLM stand-in. Two members and three characters in one channel — a character answering by
 * name, by a reply to its message and by trigger word, a character turning to another, the
 * turn limit of a scene, an unaddressed mention answered by the bot itself, and the channel's
 * webhook deleted mid-scene and made again. Every webhook write carries allowed_mentions, and
 * nothing meets a 429.
 */
import { PermissionFlagsBits, type APIMessage } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPngTextChunks } from '../../src/bot/cast/cards/png-text-chunks.ts';
import { createCharacter } from '../../src/db/character-repository.ts';
import { addToScene } from '../../src/db/scene-repository.ts';
import { updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import { DEFAULT_BOT_PERMISSIONS } from '../fake-discord/rules/default-permissions.ts';
import type { RecordedRequest } from '../support/llm-stand-in/recorded-request.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startHarness, waitForTurn, type BotHarness } from './support/bot-harness.ts';
import { characterFields } from './support/character-fields.ts';
import { chatRequests } from './support/chat-requests.ts';
import { commandsRegistered } from './support/slash-commands.ts';

function buildWorld(discord: FakeDiscord) {
  const guild = discord.createGuild({
    name: 'Crossroads',
    botPermissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.ManageWebhooks,
  });
  const managers = discord.createRole({
    guildId: guild.id,
    name: 'Managers',
    permissions: PermissionFlagsBits.ManageGuild,
  });
  const mika = discord.createUser({ username: 'mika' });
  const ren = discord.createUser({ username: 'ren' });
  discord.addMember({ guildId: guild.id, userId: mika.id, roleIds: [managers.id] });
  discord.addMember({ guildId: guild.id, userId: ren.id });
  const inn = discord.createChannel({ guildId: guild.id, name: 'inn' });
  return { guild, mika, ren, inn };
}

type World = ReturnType<typeof buildWorld>;

/** What each voice answers, by the persona the system prompt names. */
const LINES: Record<string, string[]> = {
  Alice: ['Welcome to the Crossroads Inn!'],
  Bob: ['A song for you. Cara, your verse!'],
  Cara: ['Alice, pour us some tea!'],
  Tomo: ['Hello, I am the bot itself.'],
  Nox: ['Always awake at this hour.'],
  Dorian: ['Once, at this very inn, a dragon paid in gold.'],
};

/** A SillyTavern V3 card, as a PNG carries it (base64 JSON in a `ccv3` text chunk). */
const DORIAN_CARD = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: {
    name: 'Dorian',
    description: '{{char}} tells tales by the fire for a coin.',
    personality: 'theatrical',
    scenario: 'The Crossroads Inn.',
    first_mes: '*{{char}} tips his hat to {{user}}.* A tale, anyone?',
    mes_example: '',
    tags: ['bard'],
    creator: 'someone',
    extensions: { tomodachi: { trigger_words: ['storyteller'] } },
  },
};
/** The smallest PNG there is: one pixel. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The custom ids of a message's buttons. */
function buttonIds(message: APIMessage | undefined): string[] {
  return (message?.components ?? []).flatMap((row) =>
    'components' in row
      ? row.components.flatMap((component) =>
          'custom_id' in component ? [component.custom_id] : [],
        )
      : [],
  );
}

/** What a request shows as the speaker's own earlier words (OpenAI wire format). */
function ownWords(request: RecordedRequest | undefined): string[] {
  const body = (request?.body ?? {}) as { messages?: Array<{ role: string; content: unknown }> };
  return (body.messages ?? [])
    .filter((message) => message.role === 'assistant' && typeof message.content === 'string')
    .map((message) => message.content as string);
}

function speakerOf(request: RecordedRequest): string {
  return /^You are ([^.]+)\./.exec(request.systemText)?.[1] ?? 'unknown';
}

describe('a cast of characters in one channel', () => {
  let harness: BotHarness<World>;
  /** Alice's line when a test wants another (undefined: her usual welcome). */
  let aliceLine: string | undefined;

  beforeAll(async () => {
    harness = await startHarness({
      setup: buildWorld,
      seed: async (db, world) => {
        const scope = { id: world.guild.id, kind: 'guild' as const };
        // No member rate limit: two members say more here in a minute than ten turns' worth.
        await updateScopeSettings(db, scope, { memberTurnsPerMinute: 0 });
        for (const character of [
          characterFields('Alice', 'Alice keeps the inn.', { triggerWords: ['innkeeper'] }),
          characterFields('Bob', 'Bob is a bard.'),
          characterFields('Cara', 'Cara is a traveller.', {
            greeting: 'Cara waves from the doorway.',
          }),
        ]) {
          const saved = await createCharacter(db, {
            scope,
            createdBy: world.mika.id,
            fields: character,
            limit: 10,
          });
          if (saved.status !== 'saved') throw new Error(`could not seed ${character.name}`);
          if (character.name !== 'Cara') {
            await addToScene(db, {
              channelId: world.inn.id,
              characterId: saved.character.id,
              limit: 8,
            });
          }
        }
      },
    });
    harness.llm.handle((request) => {
      const speaker = speakerOf(request);
      if (speaker === 'Alice' && aliceLine !== undefined) return textScript(aliceLine);
      return textScript(...(LINES[speaker] ?? ['…']));
    });
    await commandsRegistered(harness.discord, harness.bot);
  });
  afterAll(() => harness.dispose());

  /** The next message a webhook posts in the inn under `name`. */
  function nextLine(name: string): Promise<APIMessage> {
    const { discord, world } = harness;
    return discord.waits.message({
      channelId: world.inn.id,
      where: (message) => message.webhook_id !== undefined && message.author.username === name,
    });
  }

  it('brings a third character on stage with /scene add, who greets the channel', async () => {
    const { discord, world } = harness;
    const greeting = nextLine('Cara');
    const reply = await discord
      .invokeSlashCommand({
        command: 'scene',
        subcommand: 'add',
        channelId: world.inn.id,
        userId: world.mika.id,
        options: { name: 'cara' },
      })
      .waitForOriginal();
    expect(reply.content).toContain('**Cara** is on stage.');
    const greeted = await greeting;
    expect(greeted.content).toBe('Cara waves from the doorway.');
    const execute = discord
      .requests({ method: 'POST', route: '/webhooks/:webhookId/:token' })
      .find((entry) => entry.responseBody !== undefined && entry.status === 200);
    expect(execute?.body).toMatchObject({
      username: 'Cara',
      allowed_mentions: { parse: [], replied_user: false },
    });
    const listed = await discord
      .invokeSlashCommand({
        command: 'scene',
        subcommand: 'list',
        channelId: world.inn.id,
        userId: world.ren.id,
      })
      .waitForOriginal();
    expect(listed.content).toBe('**On stage**, in turn order: **Alice** → **Bob** → **Cara**');
  });

  it('answers a member who addresses a character by name, under its name and avatar', async () => {
    const { discord, world } = harness;
    const line = nextLine('Alice');
    const executed = discord.waits.request({
      method: 'POST',
      route: '/webhooks/:webhookId/:token',
    });
    discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: 'Alice, a room please?',
    });
    const message = await line;
    const execute = await executed;
    expect(message.content).toBe('Welcome to the Crossroads Inn!');
    expect(discord.webhooks(world.inn.id)).toHaveLength(1);
    expect(execute?.query).toMatchObject({ wait: 'true' });
    expect(execute?.body).toMatchObject({
      username: 'Alice',
      avatar_url: 'https://example.test/alice.png',
    });
  });

  it('lets characters turn to each other, one model call each, until the turn limit', async () => {
    const { discord, world, llm } = harness;
    const before = chatRequests(llm.requests).length;
    // Alice turns to Bob in this scene: a fourth character turn the limit (3) must refuse.
    aliceLine = 'Bob, one more song?';
    const bob = nextLine('Bob');
    const cara = nextLine('Cara');
    const alice = nextLine('Alice');
    discord.postMessage({
      authorId: world.ren.id,
      channelId: world.inn.id,
      content: 'Bob, sing for us!',
    });
    expect((await bob).content).toBe('A song for you. Cara, your verse!');
    expect((await cara).content).toBe('Alice, pour us some tea!');
    expect((await alice).content).toBe('Bob, one more song?');
    aliceLine = undefined;
    // The channel runs one turn at a time: had a fourth character turn been queued, it would
    // come before the bot's answer to this mention.
    const itself = discord.waits.message({ channelId: world.inn.id, authorId: discord.botUserId });
    discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: `<@${discord.botUserId}> who runs this place?`,
    });
    const answer = await itself;
    expect(answer.webhook_id).toBeUndefined();
    expect(answer.content).toBe('Hello, I am the bot itself.');
    const requests = chatRequests(llm.requests).slice(before);
    expect(requests.map(speakerOf)).toEqual(['Bob', 'Cara', 'Alice', 'Tomo']);
    const caraSees = requests[1]?.lastUserText ?? '';
    // Her greeting is her own earlier line; Bob's is not.
    expect(ownWords(requests[1])).toContain('Cara waves from the doorway.');
    expect(ownWords(requests[0])).not.toContain('Cara waves from the doorway.');
    expect(caraSees).toContain('Bob, sing for us!');
    expect(caraSees).toContain('[Bob');
    expect(caraSees).toContain('A song for you. Cara, your verse!');
  });

  it('answers the character a member replies to, and a trigger word calls its character', async () => {
    const { discord, world } = harness;
    const welcome = discord
      .readChannel(world.inn.id)
      .find((message) => message.content === 'Welcome to the Crossroads Inn!');
    const reply = nextLine('Alice');
    discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: 'Thank you!',
      replyTo: welcome?.id ?? '',
    });
    expect((await reply).content).toBe('Welcome to the Crossroads Inn!');
    const called = nextLine('Alice');
    discord.postMessage({
      authorId: world.ren.id,
      channelId: world.inn.id,
      content: 'where is the innkeeper?',
    });
    expect((await called).content).toBe('Welcome to the Crossroads Inn!');
  });

  it('makes the webhook again when it was deleted mid-scene', async () => {
    const { discord, world } = harness;
    const [webhook] = discord.webhooks(world.inn.id);
    discord.deleteWebhook(webhook?.id ?? '');
    const line = nextLine('Alice');
    discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: 'Alice, still open?',
    });
    expect((await line).content).toBe('Welcome to the Crossroads Inn!');
    const now = discord.webhooks(world.inn.id);
    expect(now).toHaveLength(1);
    expect(now[0]?.id).not.toBe(webhook?.id);
    expect(
      discord.requests({ method: 'POST', route: '/webhooks/:webhookId/:token', status: 404 }),
    ).toHaveLength(1);
  });

  it('a Stop press on one character’s reply ends it and the scene: the next does not speak', async () => {
    const { discord, world, llm } = harness;
    const gate = createGate();
    // Bob's reply shows its first paragraph, which turns to Cara, then waits.
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Cara, listen to this one.\n\n' },
        { type: 'hold', gate },
        { type: 'text', text: 'A verse that must never appear.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const first = nextLine('Bob');
    const trigger = discord.postMessage({
      authorId: world.ren.id,
      channelId: world.inn.id,
      content: 'Bob, one more?',
    });
    const finished = waitForTurn(harness.bot, trigger.id);
    const shown = await first;
    const stopId = buttonIds(discord.message(shown.id))[0] ?? '';
    expect(stopId).toMatch(/^stop-reply:/);
    const pressed = discord.pressButton({
      userId: world.ren.id,
      messageId: shown.id,
      customId: stopId,
    });
    expect((await pressed.waitForFollowUp()).content).toContain('Stopped');
    gate.release();
    expect((await finished).json?.['status']).toBe('stopped');
    // The channel's next turn is the bot's own answer: no Cara turn was queued before it.
    const itself = discord.waits.message({ channelId: world.inn.id, authorId: discord.botUserId });
    discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: `<@${discord.botUserId}> quiet tonight?`,
    });
    await itself;
    const after = discord
      .readChannel(world.inn.id)
      .filter((message) => BigInt(message.id) > BigInt(shown.id));
    expect(after.some((message) => message.author.username === 'Cara')).toBe(false);
    const bob = discord.message(shown.id);
    expect(bob?.content).not.toContain('never appear');
    expect(buttonIds(bob)).toEqual([]);
  });

  /** Holds a character's reply after its first paragraph (shown at once) until released. */
  function heldReply(first: string, rest: string) {
    const gate = createGate();
    harness.llm.enqueue({
      steps: [
        { type: 'text', text: `${first}\n\n` },
        { type: 'hold', gate },
        { type: 'text', text: rest },
        { type: 'finish', reason: 'stop' },
      ],
    });
    return gate;
  }

  /** The next log line (none of those already written) that `accepts`. */
  function nextLog(accepts: (json: Record<string, unknown>) => boolean) {
    const earlier = new Set(harness.bot.logs());
    return harness.bot.waitForLog(
      (line) => !earlier.has(line) && line.json !== undefined && accepts(line.json),
    );
  }

  /** The `count`th "turn finished" for a member message (a scene answers it once per character). */
  function turnsFinished(messageId: string, count: number) {
    let seen = 0;
    return nextLog(
      (json) =>
        json['msg'] === 'turn finished' && json['messageId'] === messageId && ++seen === count,
    );
  }

  /** The bot's own answer to a mention: the channel runs one turn at a time, so all before it ended. */
  async function channelSettled(): Promise<void> {
    const { discord, world } = harness;
    const itself = discord.waits.message({ channelId: world.inn.id, authorId: discord.botUserId });
    discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: `<@${discord.botUserId}> all quiet?`,
    });
    await itself;
  }

  function namesAfter(messageId: string): string[] {
    return harness.discord
      .readChannel(harness.world.inn.id)
      .filter((message) => BigInt(message.id) > BigInt(messageId))
      .filter((message) => message.webhook_id !== undefined)
      .map((message) => message.author.username);
  }

  it('“Bob, stop” while Alice speaks: Alice finishes, Bob never speaks for that message', async () => {
    const { discord, world } = harness;
    const gate = heldReply('Let me find a key.', 'Bob, grab the lute.');
    const first = nextLine('Alice');
    const trigger = discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: 'Alice and Bob: evening!',
    });
    const finished = turnsFinished(trigger.id, 1);
    const shown = await first;
    const silenced = nextLog((json) => json['msg'] === 'characters silenced by a member');
    discord.postMessage({ authorId: world.mika.id, channelId: world.inn.id, content: 'Bob, stop' });
    await silenced;
    gate.release();
    expect((await finished).json?.['status']).toBe('complete');
    await channelSettled();
    const lines = discord
      .readChannel(world.inn.id)
      .filter((message) => BigInt(message.id) >= BigInt(shown.id));
    expect(lines.some((message) => message.content.includes('Bob, grab the lute.'))).toBe(true);
    expect(namesAfter(shown.id)).not.toContain('Bob');
  });

  it('“Alice, stop” stops only her reply; Bob, addressed after her, still speaks', async () => {
    const { discord, world } = harness;
    const gate = heldReply('A toast to', 'a verse that must never appear.');
    const first = nextLine('Alice');
    const trigger = discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: 'Alice and Bob: a toast?',
    });
    const finished = turnsFinished(trigger.id, 1);
    const sceneOver = turnsFinished(trigger.id, 3);
    const shown = await first;
    const bob = nextLine('Bob');
    const stopped = nextLog(
      (json) => json['msg'] === 'stopped by a member' && json['characterIds'] !== undefined,
    );
    discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: 'Alice, stop',
    });
    await stopped;
    gate.release();
    expect((await finished).json?.['status']).toBe('stopped');
    expect((await bob).content).toBe('A song for you. Cara, your verse!');
    await sceneOver;
    await channelSettled();
    expect(discord.message(shown.id)?.content).not.toContain('never appear');
    // Bob turned to Cara, Cara to Alice: the limit (3) and the stop both keep Alice silent.
    const after = namesAfter(shown.id);
    expect(after.slice(after.indexOf('Bob'))).not.toContain('Alice');
  });

  it('a plain “stop” during a scene stops the reply and every character still to speak', async () => {
    const { discord, world } = harness;
    const gate = heldReply('Listen,', 'a song that must never appear.');
    const first = nextLine('Bob');
    const trigger = discord.postMessage({
      authorId: world.ren.id,
      channelId: world.inn.id,
      content: 'Bob and Cara: news?',
    });
    const finished = turnsFinished(trigger.id, 1);
    const shown = await first;
    const stopped = nextLog(
      (json) => json['msg'] === 'stopped by a member' && json['characterIds'] === undefined,
    );
    discord.postMessage({ authorId: world.ren.id, channelId: world.inn.id, content: 'stop' });
    await stopped;
    gate.release();
    expect((await finished).json?.['status']).toBe('stopped');
    await channelSettled();
    expect(namesAfter(shown.id).filter((name) => name !== 'Bob')).toEqual([]);
  });

  it('shows in /usage what each character’s turns spent, for the whole server only', async () => {
    const { discord, world } = harness;
    const invoke = (userId: string, locale: string) =>
      discord
        .invokeSlashCommand({ command: 'usage', channelId: world.inn.id, userId, locale })
        .waitForOriginal();
    const server = await invoke(world.mika.id, 'en-US');
    const field = server.embeds?.[0]?.fields?.find(
      (item) => item.name === 'By character (30 days)',
    );
    const ranked = (field?.value ?? '').split('\n').filter((line) => line.startsWith('**'));
    expect(ranked.map((line) => /^\*\*(\w+)\*\*/.exec(line)?.[1]).sort()).toEqual([
      'Alice',
      'Bob',
      'Cara',
    ]);
    const japanese = await invoke(world.mika.id, 'ja');
    expect(japanese.embeds?.[0]?.fields?.map((item) => item.name)).toContain(
      'キャラクター別（30日）',
    );
    const own = await invoke(world.ren.id, 'en-US');
    expect(own.embeds?.[0]?.fields?.map((item) => item.name)).not.toContain(
      'By character (30 days)',
    );
  });

  it('keeps what a character learns about a member as its own, and /memory shows it by character', async () => {
    const { discord, world, llm } = harness;
    const fact = '{"scope":"user","fact":"drinks mint tea with honey"}';
    llm.enqueue({
      steps: [
        { type: 'tool-calls', calls: [{ id: 'call_tea', name: 'remember_fact', arguments: fact }] },
        { type: 'finish', reason: 'tool_calls' },
      ],
    });
    const asked = discord.postMessage({
      authorId: world.ren.id,
      channelId: world.inn.id,
      content: 'Alice, remember my drink.',
    });
    expect((await waitForTurn(harness.bot, asked.id)).json?.['status']).toBe('complete');
    const before = chatRequests(llm.requests).length;
    // Cara answers, then turns to Alice: both see ren, only Alice her own memory of ren.
    const cara = nextLine('Cara');
    const alice = nextLine('Alice');
    discord.postMessage({ authorId: world.ren.id, channelId: world.inn.id, content: 'Cara, hi!' });
    await cara;
    await alice;
    const requests = chatRequests(llm.requests).slice(before);
    const seen = (speaker: string) =>
      JSON.stringify(requests.find((request) => speakerOf(request) === speaker)?.body ?? '');
    expect(seen('Alice')).toContain('What you remember about ren:\\n- drinks mint tea with honey');
    expect(seen('Cara')).not.toContain('mint tea');

    const list = async (userId: string, options: Record<string, string> = {}) =>
      (
        await discord
          .invokeSlashCommand({
            command: 'memory',
            subcommand: 'list',
            channelId: world.inn.id,
            userId,
            options,
          })
          .waitForOriginal()
      ).embeds?.[0]?.description ?? '';
    expect(await list(world.ren.id)).toContain(
      '**What the characters remember about you**\n• **Alice**: drinks mint tea with honey',
    );
    expect(await list(world.ren.id, { character: 'Alice' })).toContain(
      'What Alice remembers about you (1/20 each)',
    );
    expect(await list(world.mika.id, { character: 'alice' })).toContain(
      `**What Alice remembers about members**\n• <@${world.ren.id}>: drinks mint tea with honey`,
    );
    expect(await list(world.mika.id, { character: 'Cara' })).toContain('(none)');
    const typing = discord.interactions.autocomplete({
      userId: world.ren.id,
      channelId: world.inn.id,
      command: 'memory',
      subcommand: 'forget',
      options: { memory: '' },
      focused: 'memory',
    });
    await typing.response();
    const choice = (typing.choices() ?? []).find((item) => item.name.startsWith('🎭 Alice:'));
    expect(choice?.name).toBe('🎭 Alice: drinks mint tea with honey');
    const forgotten = await discord
      .invokeSlashCommand({
        command: 'memory',
        subcommand: 'forget',
        channelId: world.inn.id,
        userId: world.ren.id,
        options: { memory: String(choice?.value ?? '') },
      })
      .waitForOriginal();
    expect(forgotten.content).toBe('Forgotten: drinks mint tea with honey');
    expect(await list(world.ren.id)).not.toContain('mint tea');
  });

  it('names in /history and /export the character behind each reply, its greeting included', async () => {
    const { discord, world } = harness;
    const history = await discord
      .invokeSlashCommand({
        command: 'history',
        channelId: world.inn.id,
        userId: world.mika.id,
        options: { count: 10 },
      })
      .waitForOriginal();
    const names = history.embeds?.[0]?.fields?.map((field) => field.name) ?? [];
    expect(names.some((name) => name.endsWith(' · Alice'))).toBe(true);
    expect(names.some((name) => name.endsWith(' · Cara'))).toBe(true);
    const exported = await discord
      .invokeSlashCommand({
        command: 'export',
        channelId: world.inn.id,
        userId: world.mika.id,
        options: { format: 'markdown' },
      })
      .waitForOriginal();
    const [file] = exported.attachments;
    const markdown = await (await fetch(file?.url ?? '')).text();
    const greeting = markdown.indexOf(`### Cara (character, id ${discord.botUserId})`);
    expect(greeting).toBeGreaterThan(0);
    expect(markdown.indexOf('Cara waves from the doorway.')).toBeGreaterThan(greeting);
    expect(markdown).toContain(`### Bob (character, id ${discord.botUserId})`);
    expect(markdown).toContain(`(assistant, id ${discord.botUserId})`);
  });

  it('posts a character’s line once when Discord loses the answer to its webhook execute', async () => {
    const { discord, world } = harness;
    discord.faults.failAfterWrite({
      method: 'POST',
      route: '/webhooks/:webhookId/:token',
      status: 502,
      times: 1,
    });
    aliceLine = 'Soup of the day: lentils.';
    const trigger = discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: 'Alice, anything to eat?',
    });
    const finished = waitForTurn(harness.bot, trigger.id);
    expect((await finished).json?.['status']).toBe('complete');
    aliceLine = undefined;
    const lines = discord
      .readChannel(world.inn.id)
      .filter((message) => message.content === 'Soup of the day: lentils.');
    expect(lines).toHaveLength(1);
    expect(
      discord
        .requests({ method: 'POST', route: '/webhooks/:webhookId/:token' })
        .filter((entry) => entry.fault === 'server-error-after-write'),
    ).toHaveLength(1);
  });

  it('in a DM: a member’s own character on the DM stage speaks through the bot, headed by its name', async () => {
    const { discord, world, llm } = harness;
    const dm = discord.openDirectMessage(world.ren.id);
    const command = (name: string, subcommand: string, options: Record<string, string>) =>
      discord
        .invokeSlashCommand({
          command: name,
          subcommand,
          channelId: dm.id,
          userId: world.ren.id,
          options,
        })
        .waitForOriginal();
    // The bot's own messages, not its answers to commands (those come through the interaction).
    const fromBot = () =>
      discord.waits.message({
        channelId: dm.id,
        authorId: discord.botUserId,
        where: (message) => message.webhook_id === undefined,
      });
    expect(
      (
        await command('character', 'create', {
          name: 'Nox',
          persona: 'Nox is a night owl.',
          greeting: 'Nox blinks awake.',
        })
      ).content,
    ).toContain('Nox');
    const greeting = fromBot();
    expect((await command('scene', 'add', { name: 'Nox' })).content).toContain(
      '**Nox** is on stage.',
    );
    expect((await greeting).content).toBe('**Nox**\nNox blinks awake.');

    const before = chatRequests(llm.requests).length;
    const answer = fromBot();
    const asking = discord.postMessage({
      authorId: world.ren.id,
      channelId: dm.id,
      content: 'Nox, still up?',
    });
    const line = await answer;
    // Its line is known as Nox's once Discord has answered the post (members see it a moment
    // before): a reply typed after that addresses Nox.
    await waitForTurn(harness.bot, asking.id);
    expect(line.content).toBe('**Nox**\nAlways awake at this hour.');
    const asked = chatRequests(llm.requests).slice(before);
    expect(asked.map(speakerOf)).toEqual(['Nox']);
    expect(ownWords(asked[0])).toContain('Nox blinks awake.');

    const again = fromBot();
    discord.postMessage({
      authorId: world.ren.id,
      channelId: dm.id,
      content: 'and tomorrow?',
      replyTo: line.id,
    });
    expect((await again).content).toBe('**Nox**\nAlways awake at this hour.');
    const itself = fromBot();
    discord.postMessage({ authorId: world.ren.id, channelId: dm.id, content: 'hello?' });
    expect((await itself).content).toBe('Hello, I am the bot itself.');

    // The DM's cast is the member's own: the server's list does not hold it.
    const serverCast = await discord
      .invokeSlashCommand({
        command: 'character',
        subcommand: 'list',
        channelId: world.inn.id,
        userId: world.ren.id,
      })
      .waitForOriginal();
    expect(JSON.stringify(serverCast.embeds)).not.toContain('Nox');
  });

  it('imports a SillyTavern card mid-scene: its character greets, speaks and answers its trigger word', async () => {
    const { discord, world, llm } = harness;
    const png = withPngTextChunks(PIXEL, [
      { keyword: 'ccv3', text: Buffer.from(JSON.stringify(DORIAN_CARD)).toString('base64') },
    ]);
    const imported = await discord
      .invokeSlashCommand({
        command: 'character',
        subcommand: 'import',
        channelId: world.inn.id,
        userId: world.mika.id,
        options: {
          card: { filename: 'dorian.png', contentType: 'image/png', data: Buffer.from(png) },
        },
      })
      .waitForOriginal();
    expect(imported.content).toBe('Imported **Dorian** from a V3 card.');
    const greeting = nextLine('Dorian');
    await discord
      .invokeSlashCommand({
        command: 'scene',
        subcommand: 'add',
        channelId: world.inn.id,
        userId: world.mika.id,
        options: { name: 'Dorian' },
      })
      .waitForOriginal();
    expect((await greeting).content).toBe('*Dorian tips his hat to User.* A tale, anyone?');

    const before = chatRequests(llm.requests).length;
    const tale = nextLine('Dorian');
    discord.postMessage({
      authorId: world.ren.id,
      channelId: world.inn.id,
      content: 'Dorian, a tale?',
    });
    expect((await tale).content).toBe('Once, at this very inn, a dragon paid in gold.');
    const asked = chatRequests(llm.requests).slice(before);
    expect(asked.map(speakerOf)).toEqual(['Dorian']);
    expect(asked[0]?.systemText).toContain('Dorian tells tales by the fire for a coin.');
    expect(ownWords(asked[0])).toContain('*Dorian tips his hat to User.* A tale, anyone?');

    const called = nextLine('Dorian');
    discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content: 'is the storyteller still here?',
    });
    expect((await called).content).toBe('Once, at this very inn, a dragon paid in gold.');
  });

  it('sent allowed_mentions with every webhook write, met no 429 and pinged nobody', () => {
    const { discord } = harness;
    const writes = discord
      .requests({ route: /^\/webhooks\/\d+\/[^/]+(\/messages\/\d+)?$/ })
      .filter((entry) => entry.method === 'POST' || entry.method === 'PATCH');
    expect(writes.length).toBeGreaterThan(5);
    for (const write of writes) {
      expect(write.body, write.path).toMatchObject({ allowed_mentions: { parse: [] } });
    }
    expect(discord.requests({ status: 429 })).toEqual([]);
    // The members' own mentions of the bot ping it; nothing the bot or its webhook wrote pings.
    const members = new Set([harness.world.mika.id, harness.world.ren.id]);
    expect(discord.pings().filter((ping) => !members.has(ping.authorId))).toEqual([]);
  });
});
