import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import {
  AudioPlayerStatus,
  createAudioPlayer,
  createAudioResource,
  EndBehaviorType,
  entersState,
  joinVoiceChannel,
  StreamType,
  VoiceConnectionStatus,
  type VoiceConnection,
} from '@discordjs/voice';
import { GatewayIntentBits, type Client } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedSpeechPcm } from '../../support/llm-stand-in/recorded-speech.ts';
import { connectClient, CHAT_BOT_INTENTS } from '../discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord.ts';
import { LOOPBACK_VOICE_CA } from './loopback-voice-server.ts';
import { decodeBotSpeech, encodeMemberSpeech, speechLevel } from './voice-audio.ts';

const WAIT_MS = 30_000;
const WEATHER = recordedSpeechPcm('What is the weather like today?') ?? new Uint8Array();

describe('loopback voice server with the real @discordjs/voice', () => {
  let discord: FakeDiscord;
  let client: Client<true>;
  let guildId: string;
  let voiceChannelId: string;
  let aliceId: string;
  let connection: VoiceConnection | undefined;
  const defaultCAs = getCACertificates('default');

  beforeAll(async () => {
    // The library dials wss:// only: this worker trusts the loopback server's certificate.
    setDefaultCACertificates([...defaultCAs, readFileSync(LOOPBACK_VOICE_CA, 'utf8')]);
    discord = await startFakeDiscord();
    const guild = discord.createGuild({ name: 'Voice' });
    guildId = guild.id;
    voiceChannelId = discord.createChannel({ guildId, name: 'Lounge', kind: 'voice' }).id;
    aliceId = discord.createUser({ username: 'alice' }).id;
    discord.addMember({ guildId, userId: aliceId });
    client = await connectClient(discord, {
      intents: [...CHAT_BOT_INTENTS, GatewayIntentBits.GuildVoiceStates],
    });
  });

  afterAll(async () => {
    connection?.destroy();
    await client?.destroy();
    await discord?.close();
    setDefaultCACertificates(defaultCAs);
  });

  function join(): VoiceConnection {
    const guild = client.guilds.cache.get(guildId);
    if (guild === undefined) throw new Error('guild not cached');
    return joinVoiceChannel({
      guildId,
      channelId: voiceChannelId,
      adapterCreator: guild.voiceAdapterCreator,
      selfDeaf: false,
    });
  }

  it('connects through op 4, the voice gateway and UDP, offering DAVE and receiving the key package', async () => {
    discord.voice.join({ userId: aliceId, channelId: voiceChannelId });
    connection = join();
    await entersState(connection, VoiceConnectionStatus.Ready, WAIT_MS);
    const server = discord.voice.server(guildId);
    expect(discord.voice.botRequests().at(-1)?.channelId).toBe(voiceChannelId);
    const identified = await server!.until(
      () => server!.identified().find((each) => each.dave.downgraded),
      WAIT_MS,
      'DAVE downgrade',
    );
    expect(identified.dave.maxProtocolVersion).toBeGreaterThanOrEqual(1);
    expect(identified.dave.offered).toBe(1);
    // An MLS KeyPackage: protocol version mls10 (1), cipher suite 2 (P-256, AES-128-GCM).
    expect(identified.dave.keyPackage?.readUInt16BE(0)).toBe(1);
    expect(identified.dave.keyPackage?.readUInt16BE(2)).toBe(2);
    expect(identified.dave.transitionsReady).toEqual([1]);
  });

  it("hears a member's speech: decrypted, then decoded to the same loudness", async () => {
    const receiver = connection!.receiver;
    const speaking = new Promise<string>((resolve) => receiver.speaking.once('start', resolve));
    const spoken = discord.voice.speak({ userId: aliceId, guildId, speech: WEATHER });
    expect(await speaking).toBe(aliceId);
    const stream = receiver.subscribe(aliceId, {
      end: { behavior: EndBehaviorType.AfterSilence, duration: 300 },
    });
    const packets: Buffer[] = [];
    stream.on('data', (packet: Buffer) => packets.push(packet));
    await new Promise((resolve, reject) => {
      stream.once('end', resolve);
      stream.once('error', reject);
    });
    await spoken;
    expect(packets.length).toBeGreaterThan(50);
    const heard = decodeBotSpeech(packets);
    expect(speechLevel(heard)).toBeGreaterThan(0.02);
  });

  it("records the bot's audio: sealed with the session key, one packet per 20 ms", async () => {
    const server = discord.voice.server(guildId)!;
    const before = server.botPackets().length;
    const packets = encodeMemberSpeech(WEATHER.subarray(0, 24_000 * 2));
    const player = createAudioPlayer();
    connection!.subscribe(player);
    player.play(createAudioResource(Readable.from(packets), { inputType: StreamType.Opus }));
    await entersState(player, AudioPlayerStatus.Playing, WAIT_MS);
    await entersState(player, AudioPlayerStatus.Idle, WAIT_MS);
    const received = await server.until(
      () =>
        server.botPackets().length - before >= packets.length
          ? server.botPackets().slice(before)
          : undefined,
      WAIT_MS,
      'bot audio',
    );
    const voiced = received.filter((packet) => !packet.silence);
    expect(voiced.length).toBe(packets.length);
    expect(speechLevel(decodeBotSpeech(voiced.map((packet) => packet.payload)))).toBeGreaterThan(
      0.02,
    );
    const span = (voiced.at(-1)?.at ?? 0) - (voiced[0]?.at ?? 0);
    expect(span).toBeGreaterThan(packets.length * 20 * 0.5);
  });

  it('follows the voice server when it moves (a new VOICE_SERVER_UPDATE endpoint)', async () => {
    const old = discord.voice.server(guildId)!;
    const moved = await discord.voice.moveServer(guildId);
    expect(moved.endpoint).not.toBe(old.endpoint);
    await moved.until(() => (moved.connected(guildId) ? true : undefined), WAIT_MS, 'reconnection');
    await entersState(connection!, VoiceConnectionStatus.Ready, WAIT_MS);
    expect(old.connected(guildId)).toBe(false);
    expect(moved.identified()).toHaveLength(1);
  });

  it('tells the client when a member leaves voice (VOICE_STATE_UPDATE)', async () => {
    const left = new Promise<[string | null, string | null]>((resolve) =>
      client.once('voiceStateUpdate', (previous, state) =>
        resolve([previous.channelId, state.channelId]),
      ),
    );
    discord.voice.leave({ userId: aliceId, guildId });
    expect(await left).toEqual([voiceChannelId, null]);
  });

  it('leaves: op 4 without a channel', async () => {
    connection!.destroy();
    connection = undefined;
    const last = await discord.voice.until(() => {
      const request = discord.voice.botRequests().at(-1);
      return request?.channelId === null ? request : undefined;
    }, WAIT_MS);
    expect(last.guildId).toBe(guildId);
    await discord.voice.until(
      () => (discord.voice.channelOf(guildId, discord.botUserId) === undefined ? true : undefined),
      WAIT_MS,
    );
  });
});
