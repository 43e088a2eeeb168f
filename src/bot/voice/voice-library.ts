/**
 * `@discordjs/voice` (and with it `@snazzah/davey`, prism-media and opusscript's channel codec)
 * loads here, on the first call to a voice channel — never at start-up: a bot that is not in a
 * voice channel carries none of it in memory.
 */
import type * as VoiceModule from '@discordjs/voice';

export type VoiceLibrary = typeof VoiceModule;

let loading: Promise<VoiceLibrary> | undefined;

export function loadVoiceLibrary(): Promise<VoiceLibrary> {
  loading ??= import('@discordjs/voice').then((library) => {
    guardDaveMessages(library.DAVESession);
    return library;
  });
  return loading;
}

/** The DAVE steps the library runs on a voice server's binary message without catching. */
const UNGUARDED_DAVE_STEPS = ['setExternalSender', 'processProposals'] as const;

type DaveSessionClass = VoiceLibrary['DAVESession'];
type DaveStep = (this: InstanceType<DaveSessionClass>, ...args: unknown[]) => unknown;

/**
 * The library answers a commit or a welcome it cannot process by declaring the transition
 * invalid and starting over (the DAVE protocol's own recovery), but an external sender or
 * proposals it cannot parse throw inside its WebSocket handler, out of any caller's reach: an
 * uncaught exception that would end the whole bot for one call's bad message. Those two steps
 * get the same recovery as the others: the call re-initialises its DAVE session (a new key
 * package), the process goes on. Applied once, to the class the library itself uses.
 */
export function guardDaveMessages(DaveSession: DaveSessionClass): void {
  const prototype = DaveSession.prototype as unknown as Record<string, DaveStep>;
  for (const step of UNGUARDED_DAVE_STEPS) {
    const original = prototype[step];
    if (original === undefined || GUARDED.has(original)) continue;
    const guarded: DaveStep = function (this, ...args) {
      try {
        return original.apply(this, args);
      } catch (error) {
        this.emit('debug', `DAVE ${step} failed: ${String(error)}; re-initialising`);
        this.recoverFromInvalidTransition(this.lastTransitionId ?? 0);
        return undefined;
      }
    };
    GUARDED.add(guarded);
    prototype[step] = guarded;
  }
}

const GUARDED = new WeakSet<DaveStep>();
