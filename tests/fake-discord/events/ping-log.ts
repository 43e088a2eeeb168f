import type { ResolvedPings } from '../rules/mentions.ts';

/** One create or edit that notified someone, as Discord would have resolved it. */
export interface PingRecord {
  messageId: string;
  channelId: string;
  guildId: string | null;
  authorId: string;
  operation: 'create' | 'edit';
  /** Epoch ms. */
  at: number;
  everyone: boolean;
  here: boolean;
  userIds: string[];
  roleIds: string[];
  repliedUser: boolean;
  /** False when the request carried no allowed_mentions and Discord's defaults applied. */
  allowedMentionsSent: boolean;
  /** SUPPRESS_NOTIFICATIONS: mentioned but no push/desktop notification. */
  silent: boolean;
}

/** Who would have been pinged, message by message; entries exist only when someone was. */
export class PingLog {
  readonly #records: PingRecord[] = [];

  record(
    context: Omit<PingRecord, 'everyone' | 'here' | 'userIds' | 'roleIds' | 'repliedUser'>,
    pings: ResolvedPings,
  ): void {
    this.#records.push({
      ...context,
      everyone: pings.everyone,
      here: pings.here,
      userIds: [...pings.userIds],
      roleIds: [...pings.roleIds],
      repliedUser: pings.repliedUser,
    });
  }

  entries(): readonly PingRecord[] {
    return [...this.#records];
  }

  clear(): void {
    this.#records.length = 0;
  }
}
