import { describe, expect, it } from 'vitest';
import { parseConfig, secretValues } from './config.ts';
import { ConfigError } from '../../core/errors.ts';

describe('speech settings', () => {
  it('are off unless SPEECH_PROVIDER is set', () => {
    expect(
      parseConfig({ DISCORD_TOKEN: 't', OPENAI_API_KEY: 'sk-chat-key' }).speech,
    ).toBeUndefined();
  });

  it("go where the chat's OpenAI calls go, with their key, by default", () => {
    const config = parseConfig({
      DISCORD_TOKEN: 't',
      OPENAI_API_KEY: 'sk-chat-key',
      OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1',
      SPEECH_PROVIDER: 'openai',
    });
    expect(config.speech).toEqual({
      provider: 'openai',
      apiKey: 'sk-chat-key',
      baseUrl: 'http://127.0.0.1:4000/v1',
      transcriptionModel: 'whisper-1',
      speechModel: 'gpt-4o-mini-tts',
      voice: 'alloy',
      maxVoiceMessageSeconds: 180,
    });
  });

  it('never send the chat key to a speech server of their own, and hide the speech key in logs', () => {
    const config = parseConfig({
      DISCORD_TOKEN: 't',
      OPENAI_API_KEY: 'sk-chat-key',
      SPEECH_PROVIDER: 'openai',
      SPEECH_BASE_URL: 'http://127.0.0.1:8000/v1',
      TRANSCRIPTION_MODEL: 'Systran/faster-whisper-small',
      SPEECH_MODEL: 'kokoro',
      SPEECH_VOICE: 'af_heart',
      VOICE_MESSAGE_MAX_SECONDS: '60',
    });
    expect(config.speech).toMatchObject({
      apiKey: undefined,
      baseUrl: 'http://127.0.0.1:8000/v1',
      transcriptionModel: 'Systran/faster-whisper-small',
      speechModel: 'kokoro',
      voice: 'af_heart',
      maxVoiceMessageSeconds: 60,
    });
    const withKey = parseConfig({
      DISCORD_TOKEN: 't',
      SPEECH_PROVIDER: 'openai',
      SPEECH_API_KEY: 'speech-secret-key',
    });
    expect(secretValues(withKey)).toContain('speech-secret-key');
  });

  it("with Gemini, go where the chat's Gemini calls go, with its models and voice", () => {
    const config = parseConfig({
      DISCORD_TOKEN: 't',
      GOOGLE_API_KEY: 'gemini-chat-key',
      GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:4001/google',
      SPEECH_PROVIDER: 'google',
    });
    expect(config.speech).toMatchObject({
      provider: 'google',
      apiKey: 'gemini-chat-key',
      baseUrl: 'http://127.0.0.1:4001/google',
      transcriptionModel: 'gemini-2.5-flash',
      speechModel: 'gemini-2.5-flash-preview-tts',
      voice: 'Kore',
    });
  });

  it('name each bad key in one line', () => {
    let problems: readonly string[] = [];
    try {
      parseConfig({
        DISCORD_TOKEN: 't',
        SPEECH_PROVIDER: 'espeak',
        SPEECH_BASE_URL: 'localhost:8000',
        VOICE_MESSAGE_MAX_SECONDS: '0',
      });
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems.map((problem) => problem.split(' ')[0])).toEqual([
      'SPEECH_PROVIDER',
      'SPEECH_BASE_URL',
      'VOICE_MESSAGE_MAX_SECONDS',
    ]);
  });
});
