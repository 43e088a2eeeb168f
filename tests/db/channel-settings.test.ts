/** A channel's own persona and humanizer, stored over its server's. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyChannelOverrides, channelSettingLevels } from '../../src/core/channel-settings.ts';
import {
  clearChannelOverrides,
  loadChannelOverrides,
  updateChannelOverrides,
} from '../../src/db/channel-settings-repository.ts';
import { loadScopeSettings, updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const GUILD = { id: '153456789012345678', kind: 'guild' as const };
const CHANNEL = '253456789012345678';
const OTHER_CHANNEL = '253456789012345679';

describe.each(testBackends())('channel settings on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
  }, 180_000);
  afterAll(() => database.dispose());

  it('stores a channel persona and humanizer that win over the server and stay in their channel', async () => {
    const { db } = database;
    await updateScopeSettings(db, GUILD, {
      personaName: 'Server Tomo',
      personaInstructions: 'Server voice.',
      humanizerDegree: 2,
    });
    expect(await loadChannelOverrides(db, CHANNEL)).toEqual({
      channelId: CHANNEL,
      persona: undefined,
      humanizerDegree: undefined,
    });
    await updateChannelOverrides(db, {
      channelId: CHANNEL,
      scope: GUILD,
      patch: { persona: { name: 'Pirate', instructions: 'Talk like a pirate.' } },
    });
    await updateChannelOverrides(db, {
      channelId: CHANNEL,
      scope: GUILD,
      patch: { humanizerDegree: 0 },
    });
    const overrides = await loadChannelOverrides(db, CHANNEL);
    const server = await loadScopeSettings(db, GUILD.id);
    expect(applyChannelOverrides(server, overrides)).toMatchObject({
      personaName: 'Pirate',
      personaInstructions: 'Talk like a pirate.',
      humanizerDegree: 0,
    });
    expect(channelSettingLevels(server, overrides)).toEqual({
      persona: 'channel',
      humanizer: 'channel',
    });
    const elsewhere = await loadChannelOverrides(db, OTHER_CHANNEL);
    expect(applyChannelOverrides(server, elsewhere)).toMatchObject({
      personaName: 'Server Tomo',
      humanizerDegree: 2,
    });
    expect(channelSettingLevels(server, elsewhere)).toEqual({
      persona: 'server',
      humanizer: 'server',
    });
  });

  it('hands a value back to the server when the channel clears it, keeping the other', async () => {
    const { db } = database;
    const cleared = await updateChannelOverrides(db, {
      channelId: CHANNEL,
      scope: GUILD,
      patch: { persona: undefined },
    });
    expect(cleared).toEqual({ channelId: CHANNEL, persona: undefined, humanizerDegree: 0 });
    expect(await loadChannelOverrides(db, CHANNEL)).toEqual(cleared);
  });

  it('refuses a humanizer level outside 0–3 at the database', async () => {
    await expect(
      updateChannelOverrides(database.db, {
        channelId: OTHER_CHANNEL,
        scope: GUILD,
        patch: { humanizerDegree: 7 as never },
      }),
    ).rejects.toThrow();
  });

  it('clears every channel override of a scope, and only that scope’s', async () => {
    const { db } = database;
    const otherGuild = { id: '153456789012345679', kind: 'guild' as const };
    await updateChannelOverrides(db, {
      channelId: '253456789012345680',
      scope: otherGuild,
      patch: { humanizerDegree: 3 },
    });
    expect(await clearChannelOverrides(db, GUILD.id)).toEqual([CHANNEL]);
    expect((await loadChannelOverrides(db, CHANNEL)).humanizerDegree).toBeUndefined();
    expect((await loadChannelOverrides(db, '253456789012345680')).humanizerDegree).toBe(3);
  });
});
