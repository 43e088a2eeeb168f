import type { VoiceConnection, VoiceConnectionState } from '@discordjs/voice';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { VoiceLibrary } from './voice-library.ts';

/** A disconnected call that does not start reconnecting within this is rejoined. */
const RECONNECT_GRACE_MS = 5_000;
/** A call stuck signalling or connecting this long (a lost UDP path) is rejoined. */
const STUCK_MS = 20_000;
/** Rejoins in a row before the call is given up (the bot was removed, the channel is gone). */
const MAX_REJOINS = 5;
/**
 * Disconnections within a minute past which the call is given up: a connection that comes up
 * and drops again and again (the reconnect loop reported with DAVE on @discordjs/voice 0.19)
 * is left, not retried forever.
 */
const MAX_DROPS_PER_MINUTE = 5;
const DROP_WINDOW_MS = 60_000;
/** The voice gateway's close code for "you were disconnected" (kicked, channel deleted, moved). */
const REMOVED_CLOSE_CODE = 4014;

/**
 * Keeps a call up: a voice-server move or a network change disconnects the connection, and the
 * library then reconnects on its own when Discord says where to (a new VOICE_SERVER_UPDATE); a
 * disconnection that does not begin to recover within a few seconds, or a connection stuck
 * connecting (the known hang after a network change), is rejoined, up to a bound; a call the
 * bot was removed from (close 4014 with no new server) ends. Answers the unwatch.
 */
export function watchConnection(options: {
  library: VoiceLibrary;
  connection: VoiceConnection;
  logger: Logger;
  clock: Clock;
  onLost(): void;
}): () => void {
  const { library, connection, logger } = options;
  const { VoiceConnectionStatus, entersState } = library;
  let stuck: ReturnType<typeof setTimeout> | undefined;
  const drops: number[] = [];
  const clearStuck = (): void => {
    if (stuck !== undefined) clearTimeout(stuck);
    stuck = undefined;
  };
  const rejoin = (why: string): void => {
    if (connection.rejoinAttempts >= MAX_REJOINS) {
      logger.warn({ why }, 'voice connection lost for good: leaving the channel');
      options.onLost();
      return;
    }
    logger.info({ why, attempt: connection.rejoinAttempts + 1 }, 'rejoining the voice channel');
    connection.rejoin();
  };
  const onState = (previous: VoiceConnectionState, state: VoiceConnectionState): void => {
    logger.debug({ from: previous.status, to: state.status }, 'voice connection state');
    clearStuck();
    if (state.status === VoiceConnectionStatus.Destroyed) {
      options.onLost();
      return;
    }
    if (state.status === VoiceConnectionStatus.Disconnected) {
      const now = options.clock.now();
      drops.push(now);
      while ((drops[0] ?? now) < now - DROP_WINDOW_MS) drops.shift();
      if (drops.length > MAX_DROPS_PER_MINUTE) {
        logger.warn(
          { drops: drops.length },
          'voice connection keeps dropping: leaving the channel',
        );
        options.onLost();
        return;
      }
      // 4014: removed from the channel — unless a move follows at once, the call is over.
      const removed =
        state.reason === library.VoiceConnectionDisconnectReason.WebSocketClose &&
        state.closeCode === REMOVED_CLOSE_CODE;
      void Promise.race([
        entersState(connection, VoiceConnectionStatus.Signalling, RECONNECT_GRACE_MS),
        entersState(connection, VoiceConnectionStatus.Connecting, RECONNECT_GRACE_MS),
      ]).catch(() => {
        if (connection.state.status !== VoiceConnectionStatus.Disconnected) return;
        if (removed) options.onLost();
        else rejoin('disconnected');
      });
      return;
    }
    if (
      state.status === VoiceConnectionStatus.Signalling ||
      state.status === VoiceConnectionStatus.Connecting
    ) {
      stuck = setTimeout(() => rejoin(`stuck ${state.status}`), STUCK_MS);
    }
  };
  connection.on('stateChange', onState);
  return () => {
    clearStuck();
    connection.off('stateChange', onState);
  };
}
