import { describe, expect, it } from 'vitest';
import { defaultScopeSettings } from '../../core/settings.ts';
import type { AcceptedMessage, TurnFacts } from '../intake/accepted-message.ts';
import { VOICE_REPLIES_FLAG } from '../settings/voice-settings.ts';
import { wantsVoiceReply } from './voice-request.ts';

function facts(mode: unknown): TurnFacts {
  const settings = {
    ...defaultScopeSettings('scope'),
    featureFlags: { [VOICE_REPLIES_FLAG]: mode },
  };
  return { settings } as unknown as TurnFacts;
}

function batch(content: string, voice = false): AcceptedMessage[] {
  const message = {
    content,
    ...(voice
      ? {
          voice: {
            attachment: { id: 'a', name: 'v.ogg', url: '', contentType: 'audio/ogg', size: 1 },
            durationSeconds: 2,
          },
        }
      : {}),
  };
  return [{ message } as unknown as AcceptedMessage];
}

describe('wantsVoiceReply', () => {
  it('never speaks when off or unset, always when always', () => {
    expect(wantsVoiceReply(batch('say it out loud'), facts(undefined))).toBe(false);
    expect(wantsVoiceReply(batch('say it out loud'), facts('off'))).toBe(false);
    expect(wantsVoiceReply(batch('hello'), facts('always'))).toBe(true);
  });

  it('when asked: speaks for "say it", 声で or a voice message, not for ordinary text', () => {
    const asked = facts('asked');
    expect(wantsVoiceReply(batch('Can you say it again?'), asked)).toBe(true);
    expect(wantsVoiceReply(batch('read it aloud please'), asked)).toBe(true);
    expect(wantsVoiceReply(batch('声で教えて'), asked)).toBe(true);
    expect(wantsVoiceReply(batch('読み上げてください'), asked)).toBe(true);
    expect(wantsVoiceReply(batch('', true), asked)).toBe(true);
    expect(wantsVoiceReply(batch('What did they say? It was loud.'), asked)).toBe(false);
    expect(wantsVoiceReply(batch('こんにちは'), asked)).toBe(false);
  });
});
