import { readFileSync } from 'node:fs';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import type { VoiceConnection } from '@discordjs/voice';
import { GatewayIntentBits, type Client } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, CHAT_BOT_INTENTS } from '../../../tests/fake-discord/discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../tests/fake-discord/fake-discord.ts';
import { LOOPBACK_VOICE_CA } from '../../../tests/fake-discord/voice/loopback-voice-server.ts';
import { loadVoiceLibrary } from './voice-library.ts';

const WAIT_MS = 30_000;

describe('the voice library as the bot loads it', () => {
  let discord: FakeDiscord;
  let client: Client<true>;
  let guildId: string;
  let channelId: string;
  let connection: VoiceConnection | undefined;
  const defaultCAs = getCACertificates('default');

  beforeAll(async () => {
    // The library dials wss:// only: this worker trusts the loopback server's certificate.
    setDefaultCACertificates([...defaultCAs, readFileSync(LOOPBACK_VOICE_CA, 'utf8')]);
    discord = await startFakeDiscord();
    guildId = discord.createGuild({ name: 'Voice' }).id;
    channelId = discord.createChannel({ guildId, name: 'Lounge', kind: 'voice' }).id;
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

  it(
    'survives MLS proposals it cannot parse: the call declares the transition invalid and goes on',
    { timeout: 3 * WAIT_MS },
    async () => {
      const voice = await loadVoiceLibrary();
      const guild = client.guilds.cache.get(guildId);
      if (guild === undefined) throw new Error('guild not cached');
      connection = voice.joinVoiceChannel({
        guildId,
        channelId,
        adapterCreator: guild.voiceAdapterCreator,
        selfDeaf: false,
      });
      await voice.entersState(connection, voice.VoiceConnectionStatus.Ready, WAIT_MS);
      const server = discord.voice.server(guildId);
      if (server === undefined) throw new Error('no voice server');
      await server.until(
        () => (server.dave(guildId).some((dave) => dave.downgraded) ? true : undefined),
        WAIT_MS,
        'the DAVE handshake',
      );

      // Unguarded, this throws inside the library's WebSocket handler: an uncaught exception.
      server.sendMalformedProposals(guildId);
      const recovered = await server.until(
        () => server.dave(guildId).find((dave) => dave.invalidated.length > 0),
        WAIT_MS,
        'the transition declared invalid (op 31)',
      );
      // The transition it was on: the voice server then starts the call's DAVE group over.
      expect(recovered.invalidated).toEqual(recovered.transitionsReady.slice(-1));
      expect(connection.state.status).toBe(voice.VoiceConnectionStatus.Ready);
    },
  );
});
