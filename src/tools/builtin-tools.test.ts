import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.ts';
import type { ToolContext } from '../core/tool.ts';
import type { Database } from '../db/database.ts';
import { ManualClock } from '../stream/testing/manual-clock.ts';
import { createBuiltinTools } from './builtin-tools.ts';
import { ToolRegistry } from './tool-registry.ts';

const GUILD_CONTEXT: ToolContext = {
  scopeId: '100000000000000001',
  guildId: '100000000000000001',
  channelId: '200000000000000002',
  userId: '300000000000000003',
  messageId: '400000000000000004',
  turnId: 't',
  memberPermissions: '0',
  locale: 'en-US',
  featureFlags: { 'tools.fetch_url': true },
};

function registry(): ToolRegistry {
  const unused = new Proxy(
    {},
    {
      get: () => {
        throw new Error('listing specs must not touch the database or Discord');
      },
    },
  );
  return new ToolRegistry({ clock: new ManualClock(), logger: silentLogger }).register(
    ...createBuiltinTools({
      db: unused as Database,
      clock: new ManualClock(),
      discordActions: unused as never,
    }),
  );
}

describe('built-in tools', () => {
  it('offer these JSON schemas to the model (snapshot: a change here changes every prompt)', () => {
    expect(registry().specs(GUILD_CONTEXT)).toMatchSnapshot();
  });

  it('are all on by default except fetch_url, and send_sticker is not offered in DMs', () => {
    const withoutFlags = { ...GUILD_CONTEXT, featureFlags: undefined };
    expect(
      registry()
        .specs(withoutFlags)
        .map((spec) => spec.name),
    ).toEqual([
      'current_time',
      'forget_fact',
      'list_memories',
      'react_with_emoji',
      'remember_fact',
      'send_sticker',
      'set_reminder',
    ]);
    const dm = { ...withoutFlags, guildId: undefined, scopeId: GUILD_CONTEXT.userId };
    expect(
      registry()
        .specs(dm)
        .map((spec) => spec.name),
    ).not.toContain('send_sticker');
    const noReminders = { ...GUILD_CONTEXT, featureFlags: { 'tools.set_reminder': false } };
    expect(
      registry()
        .specs(noReminders)
        .map((spec) => spec.name),
    ).not.toContain('set_reminder');
  });

  it("tell the model whose time zone they read: the server's in a guild, the member's in a DM", () => {
    const dm = { ...GUILD_CONTEXT, guildId: undefined, scopeId: GUILD_CONTEXT.userId };
    const descriptions = (context: ToolContext) =>
      Object.fromEntries(
        registry()
          .specs(context)
          .filter((spec) => spec.name === 'current_time' || spec.name === 'set_reminder')
          .map((spec) => [spec.name, spec.description]),
      );
    const inGuild = descriptions(GUILD_CONTEXT);
    const inDm = descriptions(dm);
    for (const name of ['current_time', 'set_reminder']) {
      expect(inGuild[name], name).toContain("this server's time zone");
      expect(inDm[name], name).toContain(
        "this member's own time zone (set with /config timezone in this DM; UTC if unset)",
      );
      expect(inDm[name], name).not.toContain('server');
    }
  });
});
