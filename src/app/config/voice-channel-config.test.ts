import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { parseConfig } from './config.ts';

const BASE = { DISCORD_TOKEN: 'token', OPENAI_API_KEY: 'sk-test' };

describe('voice channel settings', () => {
  it('are off unless VOICE_CHANNELS=on', () => {
    expect(parseConfig({ ...BASE, SPEECH_PROVIDER: 'openai' }).voiceChannels).toBeUndefined();
  });

  it('default to text chat on, no auto-join and 700 ms of silence', () => {
    const config = parseConfig({ ...BASE, SPEECH_PROVIDER: 'openai', VOICE_CHANNELS: 'on' });
    expect(config.voiceChannels).toEqual({ autoJoin: false, textChat: true, silenceMs: 700 });
  });

  it('take auto-join, text chat and the silence from the environment', () => {
    const config = parseConfig({
      ...BASE,
      SPEECH_PROVIDER: 'openai',
      VOICE_CHANNELS: 'on',
      VOICE_AUTO_JOIN: 'on',
      VOICE_TEXT_CHAT: 'off',
      VOICE_SILENCE_MS: '1200',
    });
    expect(config.voiceChannels).toEqual({ autoJoin: true, textChat: false, silenceMs: 1200 });
  });

  it('refuse to start with voice channels on but no speech provider, naming both keys', () => {
    expect(() => parseConfig({ ...BASE, VOICE_CHANNELS: 'on' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...BASE, VOICE_CHANNELS: 'on' })).toThrow(
      /VOICE_CHANNELS=on needs SPEECH_PROVIDER/,
    );
  });

  it('name a bad value', () => {
    expect(() =>
      parseConfig({
        ...BASE,
        SPEECH_PROVIDER: 'openai',
        VOICE_CHANNELS: 'yes',
        VOICE_SILENCE_MS: '50',
      }),
    ).toThrow(/VOICE_CHANNELS[\s\S]*VOICE_SILENCE_MS|VOICE_SILENCE_MS[\s\S]*VOICE_CHANNELS/);
  });
});
