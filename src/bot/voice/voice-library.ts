/**
 * `@discordjs/voice` (and with it `@snazzah/davey`, prism-media and opusscript's channel codec)
 * loads here, on the first call to a voice channel — never at start-up: a bot that is not in a
 * voice channel carries none of it in memory.
 */
import type * as VoiceModule from '@discordjs/voice';

export type VoiceLibrary = typeof VoiceModule;

let loading: Promise<VoiceLibrary> | undefined;

export function loadVoiceLibrary(): Promise<VoiceLibrary> {
  loading ??= import('@discordjs/voice');
  return loading;
}
