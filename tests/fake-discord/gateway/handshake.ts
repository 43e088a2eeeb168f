import { randomBytes } from 'node:crypto';
import { GatewayCloseCodes, GatewayOpcodes } from 'discord-api-types/v10';
import type { GatewayLifecycleEvent } from '../events/event-hub.ts';
import type { World } from '../state/world.ts';
import { GatewaySession, send, type GatewayConnection } from './gateway-session.ts';
import { KNOWN_INTENTS, PRIVILEGED_INTENTS } from './intents.ts';
import { buildReady, guildCreateEvents } from './ready-payloads.ts';
import { parseShardPair } from './shard-routing.ts';

/** What the handshake needs from the gateway server. */
export interface HandshakeHost {
  world: World;
  sessions: Map<string, GatewaySession>;
  resumeUrl: () => string;
  lifecycle: (event: GatewayLifecycleEvent) => void;
  close: (connection: GatewayConnection, code: number, reason: string) => void;
  /** True once after the test called rejectNextResume(). */
  takeResumeRejection: () => boolean;
}

export interface IdentifyData {
  token?: unknown;
  intents?: unknown;
  shard?: unknown;
}

export interface ResumeData {
  token?: unknown;
  session_id?: unknown;
  seq?: unknown;
}

/**
 * IDENTIFY: 4005 when already identified, 4004 for a wrong token, 4013 for unknown intent
 * bits, 4014 for privileged intents not enabled in the portal, 4010 for a bad `[shard_id,
 * num_shards]`; otherwise a new session, READY and one GUILD_CREATE per guild of its shard.
 */
export function identify(
  host: HandshakeHost,
  connection: GatewayConnection,
  data: IdentifyData,
): void {
  const { world } = host;
  if (connection.authenticated) {
    host.close(connection, GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated.');
    return;
  }
  if (data.token !== world.bot.token && data.token !== `Bot ${world.bot.token}`) {
    host.close(connection, GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
    return;
  }
  const intents = Number(data.intents);
  if (!Number.isInteger(intents) || (intents & ~KNOWN_INTENTS) !== 0) {
    host.close(connection, GatewayCloseCodes.InvalidIntents, 'Invalid intent(s).');
    return;
  }
  if ((intents & PRIVILEGED_INTENTS & ~world.bot.privilegedIntents) !== 0) {
    host.close(connection, GatewayCloseCodes.DisallowedIntents, 'Disallowed intent(s).');
    return;
  }
  const shard = parseShardPair(data.shard);
  if (shard === undefined) {
    host.close(connection, GatewayCloseCodes.InvalidShard, 'Invalid shard.');
    return;
  }
  connection.authenticated = true;
  const session = new GatewaySession({
    id: randomBytes(16).toString('hex'),
    intents,
    shard,
    connection,
  });
  connection.session = session;
  host.sessions.set(session.id, session);
  host.lifecycle({
    kind: 'identified',
    connectionId: connection.id,
    sessionId: session.id,
    intents,
    shard,
  });
  const resumeUrl = host.resumeUrl();
  session.dispatch('READY', buildReady(world, session, resumeUrl));
  const guildCreates = guildCreateEvents(world, session);
  for (const guildCreate of guildCreates) session.dispatch('GUILD_CREATE', guildCreate);
  host.lifecycle({
    kind: 'ready-sent',
    connectionId: connection.id,
    sessionId: session.id,
    guilds: guildCreates.length,
  });
}

/**
 * RESUME: replays every dispatch after `seq` then RESUMED, on the same session (a connection
 * still holding it is closed). Unknown, invalidated or backlog-exceeded sessions get op 9
 * INVALID_SESSION (d: false).
 */
export function resume(host: HandshakeHost, connection: GatewayConnection, data: ResumeData): void {
  const { world } = host;
  if (data.token !== world.bot.token && data.token !== `Bot ${world.bot.token}`) {
    host.close(connection, GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
    return;
  }
  const session =
    typeof data.session_id === 'string' ? host.sessions.get(data.session_id) : undefined;
  const replay =
    session?.resumable === true && typeof data.seq === 'number'
      ? session.replayAfter(data.seq)
      : undefined;
  const rejected = host.takeResumeRejection();
  if (session === undefined || replay === undefined || rejected) {
    session?.invalidate();
    send(connection.socket, { op: GatewayOpcodes.InvalidSession, d: false });
    return;
  }
  if (session.connection !== null && session.connection !== connection) {
    host.close(session.connection, GatewayCloseCodes.UnknownError, 'Session resumed elsewhere');
  }
  connection.authenticated = true;
  connection.session = session;
  session.connection = connection;
  for (const payload of replay) session.send(payload);
  session.dispatch('RESUMED', {});
  host.lifecycle({
    kind: 'resumed',
    connectionId: connection.id,
    sessionId: session.id,
    replayed: replay.length,
  });
}
