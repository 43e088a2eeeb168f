/** Voice messages (flag 1 << 13) as Discord takes and shows them, through discord.js. */
import { AttachmentBuilder, MessageFlags, type Client, type TextChannel } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectClient, nextEvent } from './discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from './fake-discord.ts';
import { raw } from './raw-api.ts';

let discord: FakeDiscord;
let client: Client<true>;
let channelId: string;
let alice: string;

beforeEach(async () => {
  discord = await startFakeDiscord();
  const guildId = discord.createGuild().id;
  channelId = discord.createChannel({ guildId, name: 'general' }).id;
  alice = discord.createUser({ username: 'alice' }).id;
  discord.addMember({ guildId, userId: alice });
  client = await connectClient(discord);
});

afterEach(async () => {
  await client.destroy();
  await discord.close();
});

const OGG = Buffer.from('OggS fake audio');

describe('voice messages', () => {
  it("shows a member's voice message with its flag, length and waveform", async () => {
    const seen = nextEvent(client, 'messageCreate');
    discord.postMessage({
      authorId: alice,
      channelId,
      flags: MessageFlags.IsVoiceMessage,
      attachments: [
        { filename: 'voice-message.ogg', data: OGG, durationSecs: 2.5, waveform: 'AAEC' },
      ],
    });
    const [message] = await seen;
    expect(message.flags.has(MessageFlags.IsVoiceMessage)).toBe(true);
    const attachment = message.attachments.first();
    expect(attachment).toMatchObject({
      contentType: 'audio/ogg',
      duration: 2.5,
      waveform: 'AAEC',
    });
  });

  it('takes a bot voice message sent as multipart with the metadata, and refuses one with text', async () => {
    const channel = (await client.channels.fetch(channelId)) as TextChannel;
    const file = new AttachmentBuilder(OGG, { name: 'voice-message.ogg' })
      .setDuration(1.25)
      .setWaveform('AQID');
    const sent = await channel.send({
      files: [file],
      flags: MessageFlags.IsVoiceMessage,
      allowedMentions: { parse: [] },
    });
    expect(sent.flags.has(MessageFlags.IsVoiceMessage)).toBe(true);
    expect(sent.attachments.first()).toMatchObject({ duration: 1.25, waveform: 'AQID' });
    expect(sent.content).toBe('');

    await expect(
      channel.send({
        content: 'hello',
        files: [file],
        flags: MessageFlags.IsVoiceMessage,
        allowedMentions: { parse: [] },
      }),
    ).rejects.toMatchObject({ code: 50159 });
    const bare = new AttachmentBuilder(OGG, { name: 'voice-message.ogg' });
    await expect(
      channel.send({
        files: [bare],
        flags: MessageFlags.IsVoiceMessage,
        allowedMentions: { parse: [] },
      }),
    ).rejects.toMatchObject({ code: 50161 });
    const edit = await raw(discord, 'PATCH', `/channels/${channelId}/messages/${sent.id}`, {
      body: { content: 'now with words', allowed_mentions: { parse: [] } },
    });
    expect(edit.body).toMatchObject({ code: 50162 });
  });

  it('takes a voice message by the upload flow: announce, PUT, then name the uploaded file', async () => {
    const announced = await raw(discord, 'POST', `/channels/${channelId}/attachments`, {
      body: { files: [{ id: '0', filename: 'voice-message.ogg', file_size: OGG.length }] },
    });
    expect(announced.status).toBe(200);
    const [slot] = (
      announced.body as {
        attachments: { id: string; upload_url: string; upload_filename: string }[];
      }
    ).attachments;
    expect(slot?.id).toBe('0');
    /** The voice message naming the uploaded file, as Discord's client sends it. */
    const postUploaded = (uploadedFilename: string | undefined) =>
      raw(discord, 'POST', `/channels/${channelId}/messages`, {
        body: {
          flags: MessageFlags.IsVoiceMessage,
          attachments: [
            {
              id: '0',
              filename: 'voice-message.ogg',
              uploaded_filename: uploadedFilename,
              duration_secs: 1.5,
              waveform: 'AQID',
            },
          ],
          allowed_mentions: { parse: [] },
        },
      });
    // The message cannot take a file before its bytes arrive.
    const early = await postUploaded(slot?.upload_filename);
    expect(early.status).toBe(400);
    const put = await fetch(slot?.upload_url ?? '', { method: 'PUT', body: OGG });
    expect(put.status).toBe(200);
    const created = await postUploaded(slot?.upload_filename);
    expect(created.status).toBe(200);
    const [attachment] = (
      created.body as {
        attachments: {
          url: string;
          duration_secs: number;
          waveform: string;
          content_type: string;
        }[];
      }
    ).attachments;
    expect(attachment).toMatchObject({
      duration_secs: 1.5,
      waveform: 'AQID',
      content_type: 'audio/ogg',
    });
    expect(Buffer.from(await (await fetch(attachment?.url ?? '')).arrayBuffer()).equals(OGG)).toBe(
      true,
    );
  });
});
